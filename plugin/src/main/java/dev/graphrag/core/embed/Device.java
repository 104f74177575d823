package dev.graphrag.core.embed;

/** Where ONNX Runtime runs the model: {@code auto} tries CUDA and falls back to the CPU. */
public enum Device { AUTO, CPU, CUDA }
