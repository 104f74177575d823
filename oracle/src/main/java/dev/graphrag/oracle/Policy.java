package dev.graphrag.oracle;

/**
 * Plays the LLM's part for one kind of call (one X-Rag-Step). A pure function of the request and of what it was
 * built with (sanitised gold, or nothing for an index-time extractor): no state between requests, so a run's
 * requests replayed in any order get the same replies (tested). It may answer only with handles, names and text
 * that appear in the request.
 */
@FunctionalInterface
public interface Policy {
    PolicyReply reply(PolicyRequest request);
}
