package dev.graphrag.agrag;

import dev.graphrag.core.embed.VectorMatrix;
import dev.graphrag.core.lexical.LexicalGraph;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Transaction;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The corpus's AGRAG graph in memory (spec §4.3): entities 0..E-1, chunks E..E+C-1, the virtual pseudo node
 * E+C; facts, synonym and contains edges with their relationship ids; embeddings in vector matrices; the cost
 * graph's topology and the PPR transition. Built once per (corpus, version) and shared by queries.
 */
final class AgragSnapshot {
    record FactEdge(int u, int v, String s, String p, String o, long relId, double weight) {}

    record PlainEdge(int u, int v, long relId, double weight) {}

    final long version;
    final String corpus;
    final List<String> names = new ArrayList<>();
    final List<String> chunkIds = new ArrayList<>();
    final List<String> chunkDocs = new ArrayList<>();
    final List<Long> nodeIds = new ArrayList<>(); // Neo4j node id per graph node (entities, then chunks)
    final Map<Long, Integer> indexOfNodeId = new HashMap<>();
    final Map<String, Integer> indexOfChunk = new HashMap<>();
    final List<FactEdge> facts = new ArrayList<>();
    final List<PlainEdge> synonyms = new ArrayList<>();
    final List<PlainEdge> contains = new ArrayList<>();
    int entityCount;
    /** Per chunk (0-based among chunks): the chunks of the documents it links to by title (AG_LINKS), in mention order. */
    int[][] linkedChunks;
    /** Chunks (0-based among chunks) of each document, in chunk order. */
    final Map<String, int[]> chunksOfDocument = new HashMap<>();
    /** The corpus's document titles, for the documents a question names (namedPassages). */
    TitleLinks titles;
    VectorMatrix factVectors, entityVectors, chunkVectors;
    /** The cost graph's fixed part: edges in the order facts, synonyms, contains, pseudo edges (one per chunk). */
    CostGraph.Topology topology;
    /** The entities on a synonym edge, ascending: the only entities whose cosine with a query a cost reads. */
    int[] synonymEntities;
    private double[] pprWeight; // per topology edge
    /** Fact relationship ids ascending and each one's fact row: an index hit's row without a boxed map of every fact. */
    private long[] factRelIds;
    private int[] factRowOfRel;
    private int[] chunkDegree;
    private volatile PersonalizedPageRank.Transition weightedTransition, unweightedTransition;

    private AgragSnapshot(String corpus, long version) {
        this.corpus = corpus;
        this.version = version;
    }

    int chunkCount() { return chunkIds.size(); }

    int edgeCount() {
        return facts.size() + synonyms.size() + contains.size() + chunkIds.size();
    }

    /** Chunks linked to each entity (AG_CONTAINS degree), for HippoRAG 2's entity weighting (do not modify). */
    int[] chunkDegree() {
        return chunkDegree;
    }
    int nodeCount() { return entityCount + chunkIds.size() + 1; }

    /** The fact row of a relationship, or -1 when it is not one of this snapshot's facts. */
    int factRow(long relId) {
        int i = Arrays.binarySearch(factRelIds, relId);
        return i < 0 ? -1 : factRowOfRel[i];
    }

    /** The chunk (0-based among chunks) of a node, or -1 when it is not one of this snapshot's chunks. */
    @SuppressWarnings("deprecation")
    int chunkRow(Node n) {
        Integer i = indexOfNodeId.get(n.getId());
        return i == null || i < entityCount ? -1 : i - entityCount;
    }
    int pseudo() { return entityCount + chunkIds.size(); }
    boolean isEntity(int i) { return i < entityCount; }

    private void buildTopology() {
        int m = edgeCount();
        int[] u = new int[m], v = new int[m];
        CostGraph.EdgeType[] type = new CostGraph.EdgeType[m];
        long[] ref = new long[m];
        String[] sub = new String[m], pred = new String[m], obj = new String[m];
        pprWeight = new double[m];
        int i = 0;
        for (FactEdge f : facts) {
            u[i] = f.u(); v[i] = f.v(); type[i] = CostGraph.EdgeType.REL; ref[i] = f.relId(); pprWeight[i] = f.weight();
            sub[i] = f.s(); pred[i] = f.p(); obj[i++] = f.o();
        }
        for (PlainEdge e : synonyms) { u[i] = e.u(); v[i] = e.v(); type[i] = CostGraph.EdgeType.SYNONYM; ref[i] = e.relId(); pprWeight[i++] = e.weight(); }
        for (PlainEdge e : contains) { u[i] = e.u(); v[i] = e.v(); type[i] = CostGraph.EdgeType.CONTAINS; ref[i] = e.relId(); pprWeight[i++] = e.weight(); }
        for (int c = 0; c < chunkCount(); c++) { u[i] = pseudo(); v[i] = entityCount + c; type[i] = CostGraph.EdgeType.PSEUDO; ref[i++] = -1; }
        topology = new CostGraph.Topology(nodeCount(), u, v, type, ref, sub, pred, obj);
        chunkDegree = new int[nodeCount()];
        for (PlainEdge e : contains) chunkDegree[e.v()]++;
        java.util.BitSet onSynonym = new java.util.BitSet(entityCount);
        for (PlainEdge e : synonyms) {
            onSynonym.set(e.u());
            onSynonym.set(e.v());
        }
        synonymEntities = onSynonym.stream().toArray();
        Integer[] byRel = new Integer[facts.size()];
        for (int f = 0; f < byRel.length; f++) byRel[f] = f;
        Arrays.sort(byRel, java.util.Comparator.comparingLong(f -> facts.get(f).relId()));
        factRelIds = new long[byRel.length];
        factRowOfRel = new int[byRel.length];
        for (int j = 0; j < byRel.length; j++) {
            factRelIds[j] = facts.get(byRel[j]).relId();
            factRowOfRel[j] = byRel[j];
        }
    }

    @SuppressWarnings("deprecation")
    static AgragSnapshot load(Transaction tx, String corpus, long version) {
        AgragSnapshot s = new AgragSnapshot(corpus, version);
        List<float[]> entityVecs = new ArrayList<>(), chunkVecs = new ArrayList<>(), factVecs = new ArrayList<>();
        // a canonical order (entities by name, chunks by id, edges by endpoints and text) rather than the store's:
        // ties in every later step then break the same way however the corpus was ingested (the permutation check)
        for (Node n : sortedBy(tx.findNodes(AgragGraph.ENTITY, "corpus", corpus), "name")) {
            s.indexOfNodeId.put(n.getId(), s.names.size());
            s.nodeIds.add(n.getId());
            s.names.add((String) n.getProperty("name"));
            entityVecs.add((float[]) n.getProperty("embedding"));
        }
        s.entityCount = s.names.size();
        for (Node n : sortedBy(tx.findNodes(LexicalGraph.CHUNK, "corpus", corpus), "id")) {
            int idx = s.entityCount + s.chunkIds.size();
            s.indexOfNodeId.put(n.getId(), idx);
            s.nodeIds.add(n.getId());
            s.indexOfChunk.put((String) n.getProperty("id"), idx);
            s.chunkIds.add((String) n.getProperty("id"));
            s.chunkDocs.add((String) n.getProperty("documentId"));
            chunkVecs.add((float[]) n.getProperty("embedding"));
        }
        List<LoadedFact> facts = new ArrayList<>();
        for (int e = 0; e < s.entityCount; e++) {
            Node n = tx.getNodeById(s.nodeIds.get(e));
            for (Relationship r : n.getRelationships(org.neo4j.graphdb.Direction.OUTGOING, AgragGraph.REL, AgragGraph.SYNONYM)) {
                Integer v = s.indexOfNodeId.get(r.getEndNode().getId());
                if (v == null) continue;
                double w = ((Number) r.getProperty("pprWeight", 1.0)).doubleValue();
                if (r.isType(AgragGraph.REL)) {
                    facts.add(new LoadedFact(new FactEdge(e, v, (String) r.getProperty("subject"), (String) r.getProperty("predicate"),
                            (String) r.getProperty("object"), r.getId(), w), (float[]) r.getProperty("embedding", null)));
                } else {
                    s.synonyms.add(new PlainEdge(e, v, r.getId(), w));
                }
            }
            for (Relationship r : n.getRelationships(org.neo4j.graphdb.Direction.INCOMING, AgragGraph.CONTAINS)) {
                Integer c = s.indexOfNodeId.get(r.getStartNode().getId());
                if (c != null) s.contains.add(new PlainEdge(c, e, r.getId(), ((Number) r.getProperty("pprWeight", 1.0)).doubleValue()));
            }
        }
        facts.sort(LoadedFact.ORDER);
        for (LoadedFact f : facts) {
            s.facts.add(f.edge());
            factVecs.add(f.vector());
        }
        java.util.Comparator<PlainEdge> byEnds = java.util.Comparator.comparingInt(PlainEdge::u).thenComparingInt(PlainEdge::v);
        s.synonyms.sort(byEnds);
        s.contains.sort(byEnds);
        Map<String, List<Integer>> byDocument = new HashMap<>();
        for (int c = 0; c < s.chunkIds.size(); c++) byDocument.computeIfAbsent(s.chunkDocs.get(c), d -> new ArrayList<>()).add(c);
        byDocument.forEach((d, cs) -> s.chunksOfDocument.put(d, cs.stream().mapToInt(Integer::intValue).toArray()));
        s.linkedChunks = new int[s.chunkIds.size()][];
        for (int c = 0; c < s.chunkIds.size(); c++) {
            List<Integer> linked = new ArrayList<>();
            for (Relationship r : tx.getNodeById(s.nodeIds.get(s.entityCount + c)).getRelationships(org.neo4j.graphdb.Direction.OUTGOING, AgragGraph.LINKS)) {
                linked.addAll(byDocument.getOrDefault((String) r.getEndNode().getProperty("id"), List.of()));
            }
            s.linkedChunks[c] = linked.stream().mapToInt(Integer::intValue).sorted().toArray();
        }
        Map<String, String> titles = new HashMap<>();
        tx.findNodes(LexicalGraph.DOCUMENT, "corpus", corpus).forEachRemaining(d -> {
            Object title = d.getProperty("title", null);
            if (title instanceof String t) titles.put((String) d.getProperty("id"), t);
        });
        s.titles = new TitleLinks(titles);
        s.factVectors = new VectorMatrix("agrag fact", factVecs);
        s.entityVectors = new VectorMatrix("agrag entity", entityVecs);
        s.chunkVectors = new VectorMatrix("chunk", chunkVecs);
        s.buildTopology();
        return s;
    }

    /** A fact edge and its embedding, kept together while the facts are put in canonical order. */
    private record LoadedFact(FactEdge edge, float[] vector) {
        static final java.util.Comparator<LoadedFact> ORDER = java.util.Comparator.<LoadedFact>comparingInt(f -> f.edge().u())
                .thenComparingInt(f -> f.edge().v()).thenComparing(f -> f.edge().s()).thenComparing(f -> f.edge().p()).thenComparing(f -> f.edge().o());
    }

    /** The nodes ordered by a string property, each node's property read once. */
    private static List<Node> sortedBy(java.util.Iterator<Node> nodes, String key) {
        List<Map.Entry<String, Node>> keyed = new ArrayList<>();
        nodes.forEachRemaining(n -> keyed.add(Map.entry((String) n.getProperty(key), n)));
        keyed.sort(Map.Entry.comparingByKey());
        return keyed.stream().map(Map.Entry::getValue).toList();
    }

    /** Native PPR over entities and chunks (the pseudo node takes no part) from a reset distribution, normalised to sum 1. */
    double[] pageRank(double[] reset, double damping, double tolerance, int maxIterations, boolean weighted) {
        double[] x = PersonalizedPageRank.compute(transition(weighted), reset, damping, tolerance, maxIterations);
        x[pseudo()] = 0;
        return x;
    }

    /** Forward-push PPR from a sparse reset ({@link PersonalizedPageRank#push}), normalised to sum 1. */
    double[] pushRank(double[] reset, double damping, double epsilon, boolean weighted) {
        double[] x = PersonalizedPageRank.push(transition(weighted), reset, damping, epsilon);
        x[pseudo()] = 0;
        return x;
    }

    /** PPR runs over the topology's real edges (all but the trailing pseudo edges) with their pprWeight. */
    private PersonalizedPageRank.Transition transition(boolean weighted) {
        PersonalizedPageRank.Transition t = weighted ? weightedTransition : unweightedTransition;
        if (t != null) return t;
        int m = edgeCount() - chunkCount();
        t = new PersonalizedPageRank.Transition(nodeCount(), Arrays.copyOf(topology.u, m), Arrays.copyOf(topology.v, m),
                weighted ? Arrays.copyOf(pprWeight, m) : null);
        if (weighted) weightedTransition = t;
        else unweightedTransition = t;
        return t;
    }
}
