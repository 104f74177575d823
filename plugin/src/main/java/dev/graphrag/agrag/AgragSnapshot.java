package dev.graphrag.agrag;

import dev.graphrag.core.lexical.LexicalGraph;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The corpus's AGRAG graph in memory (spec §4.3): entities 0..E-1, chunks E..E+C-1, the virtual pseudo node
 * E+C; facts, synonym and contains edges with their relationship ids; embeddings as float arrays. Built once
 * per (corpus, version) and shared by queries.
 */
final class AgragSnapshot {
    record FactEdge(int u, int v, String s, String p, String o, float[] vec, long relId, double weight) {}

    record PlainEdge(int u, int v, long relId, double weight) {}

    final long version;
    final List<String> names = new ArrayList<>();
    final List<float[]> entityVecs = new ArrayList<>();
    final List<String> chunkIds = new ArrayList<>();
    final List<String> chunkDocs = new ArrayList<>();
    final List<float[]> chunkVecs = new ArrayList<>();
    final List<Long> nodeIds = new ArrayList<>(); // Neo4j node id per graph node (entities, then chunks)
    final Map<Long, Integer> indexOfNodeId = new HashMap<>();
    final Map<String, Integer> indexOfChunk = new HashMap<>();
    final List<FactEdge> facts = new ArrayList<>();
    final List<PlainEdge> synonyms = new ArrayList<>();
    final List<PlainEdge> contains = new ArrayList<>();
    int entityCount;
    private volatile double[][] norms; // facts, entities, chunks

    /** Cosine of the query (with its norm) and each vector of a group, from cached norms: one dot product each. */
    double[] cosines(float[] q, int group) {
        double[][] n = norms;
        if (n == null) {
            n = new double[3][];
            n[0] = facts.stream().mapToDouble(f -> f.vec() == null ? 0 : dev.graphrag.core.embed.EmbeddingService.norm(f.vec())).toArray();
            n[1] = entityVecs.stream().mapToDouble(dev.graphrag.core.embed.EmbeddingService::norm).toArray();
            n[2] = chunkVecs.stream().mapToDouble(dev.graphrag.core.embed.EmbeddingService::norm).toArray();
            norms = n;
        }
        double qn = dev.graphrag.core.embed.EmbeddingService.norm(q);
        double[] out = new double[n[group].length];
        for (int i = 0; i < out.length; i++) {
            float[] v = group == 0 ? facts.get(i).vec() : group == 1 ? entityVecs.get(i) : chunkVecs.get(i);
            double d = n[group][i] * qn;
            out[i] = v == null || d == 0 ? 0 : dev.graphrag.core.embed.EmbeddingService.dot(q, v) / d;
        }
        return out;
    }

    static final int FACTS = 0, ENTITIES = 1, CHUNKS = 2;

    private AgragSnapshot(long version) {
        this.version = version;
    }

    private volatile int[][] adjacency; // edge ids per node over: facts, synonyms, contains, pseudo edges (in that order)

    int chunkCount() { return chunkIds.size(); }

    /** The cost graph's fixed topology, built once per snapshot; edge i of {@link #edgeEnds(int)} order. */
    int[][] adjacency() {
        int[][] a = adjacency;
        if (a != null) return a;
        int n = nodeCount();
        int[] degree = new int[n];
        int m = edgeCount();
        for (int i = 0; i < m; i++) {
            int[] uv = edgeEnds(i);
            degree[uv[0]]++;
            degree[uv[1]]++;
        }
        a = new int[n][];
        for (int v = 0; v < n; v++) a[v] = new int[degree[v]];
        int[] fill = new int[n];
        for (int i = 0; i < m; i++) {
            int[] uv = edgeEnds(i);
            a[uv[0]][fill[uv[0]]++] = i;
            a[uv[1]][fill[uv[1]]++] = i;
        }
        adjacency = a;
        return a;
    }

    int edgeCount() {
        return facts.size() + synonyms.size() + contains.size() + chunkIds.size();
    }

    int[] edgeEnds(int i) {
        if (i < facts.size()) return new int[] {facts.get(i).u(), facts.get(i).v()};
        i -= facts.size();
        if (i < synonyms.size()) return new int[] {synonyms.get(i).u(), synonyms.get(i).v()};
        i -= synonyms.size();
        if (i < contains.size()) return new int[] {contains.get(i).u(), contains.get(i).v()};
        i -= contains.size();
        return new int[] {pseudo(), entityCount + i};
    }

    /** Chunks linked to each entity (AG_CONTAINS degree), for HippoRAG 2's entity weighting. */
    int[] chunkDegree() {
        int[] d = new int[nodeCount()];
        for (PlainEdge e : contains) d[e.v()]++;
        return d;
    }
    int nodeCount() { return entityCount + chunkIds.size() + 1; }
    int pseudo() { return entityCount + chunkIds.size(); }
    boolean isEntity(int i) { return i < entityCount; }

    @SuppressWarnings("deprecation")
    static AgragSnapshot load(Transaction tx, String corpus, long version) {
        AgragSnapshot s = new AgragSnapshot(version);
        tx.findNodes(AgragGraph.ENTITY, "corpus", corpus).forEachRemaining(n -> {
            s.indexOfNodeId.put(n.getId(), s.names.size());
            s.nodeIds.add(n.getId());
            s.names.add((String) n.getProperty("name"));
            s.entityVecs.add((float[]) n.getProperty("embedding"));
        });
        s.entityCount = s.names.size();
        tx.findNodes(LexicalGraph.CHUNK, "corpus", corpus).forEachRemaining(n -> {
            int idx = s.entityCount + s.chunkIds.size();
            s.indexOfNodeId.put(n.getId(), idx);
            s.nodeIds.add(n.getId());
            s.indexOfChunk.put((String) n.getProperty("id"), idx);
            s.chunkIds.add((String) n.getProperty("id"));
            s.chunkDocs.add((String) n.getProperty("documentId"));
            s.chunkVecs.add((float[]) n.getProperty("embedding"));
        });
        for (int e = 0; e < s.entityCount; e++) {
            Node n = tx.getNodeById(s.nodeIds.get(e));
            for (Relationship r : n.getRelationships(org.neo4j.graphdb.Direction.OUTGOING, AgragGraph.REL, AgragGraph.SYNONYM)) {
                Integer v = s.indexOfNodeId.get(r.getEndNode().getId());
                if (v == null) continue;
                double w = ((Number) r.getProperty("pprWeight", 1.0)).doubleValue();
                if (r.isType(AgragGraph.REL)) {
                    s.facts.add(new FactEdge(e, v, (String) r.getProperty("subject"), (String) r.getProperty("predicate"),
                            (String) r.getProperty("object"), (float[]) r.getProperty("embedding", null), r.getId(), w));
                } else {
                    s.synonyms.add(new PlainEdge(e, v, r.getId(), w));
                }
            }
            for (Relationship r : n.getRelationships(org.neo4j.graphdb.Direction.INCOMING, AgragGraph.CONTAINS)) {
                Integer c = s.indexOfNodeId.get(r.getStartNode().getId());
                if (c != null) s.contains.add(new PlainEdge(c, e, r.getId(), ((Number) r.getProperty("pprWeight", 1.0)).doubleValue()));
            }
        }
        return s;
    }

    /** Native PPR over entities and chunks (the pseudo node takes no part), normalised to sum 1. */
    double[] pageRank(int[] sources, double damping, double tolerance, int maxIterations, boolean weighted) {
        double[] reset = new double[nodeCount()];
        for (int s : sources) reset[s] += 1;
        return pageRank(reset, damping, tolerance, maxIterations, weighted);
    }

    /** Native PPR with a weighted reset distribution over the graph nodes. */
    double[] pageRank(double[] reset, double damping, double tolerance, int maxIterations, boolean weighted) {
        int m = facts.size() + synonyms.size() + contains.size();
        int[] from = new int[m], to = new int[m];
        double[] w = new double[m];
        int i = 0;
        for (FactEdge f : facts) { from[i] = f.u(); to[i] = f.v(); w[i++] = f.weight(); }
        for (PlainEdge e : synonyms) { from[i] = e.u(); to[i] = e.v(); w[i++] = e.weight(); }
        for (PlainEdge e : contains) { from[i] = e.u(); to[i] = e.v(); w[i++] = e.weight(); }
        double[] x = PersonalizedPageRank.compute(nodeCount(), from, to, weighted ? w : null, reset, damping, tolerance, maxIterations);
        x[pseudo()] = 0;
        return x;
    }
}
