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
 * The corpus's AGRAG graph in memory (docs/agrag.md#the-graph-in-memory-and-in-gds): entities 0..E-1, chunks E..E+C-1, the virtual pseudo node
 * E+C; facts, synonym and contains edges with their relationship ids; embeddings in vector matrices; the cost
 * graph's topology and the PPR transition. Built once per (corpus, version) and shared by queries.
 * <p>
 * Held in heap per corpus, so it keeps each thing once, in primitive arrays where it can (docs/operations.md
 * "Sizing"): the edges only in the topology (facts first, then synonyms, contains and pseudo edges; a fact's
 * record is made when asked for), node ids in sorted arrays rather than a boxed map, equal strings as one
 * instance, and entity vectors only for the entities on a synonym edge, the only ones whose cosine a query reads.
 */
final class AgragSnapshot {
    record FactEdge(int u, int v, String s, String p, String o, long relId) {}

    /** A synonym or contains edge while loading (the snapshot keeps it in the topology only). */
    private record PlainEdge(int u, int v, long relId, double weight) {}

    final long version;
    final String corpus;
    final List<String> names = new ArrayList<>();
    final List<String> chunkIds = new ArrayList<>();
    final List<String> chunkDocs = new ArrayList<>();
    /** Neo4j node id per graph node (entities, then chunks). */
    long[] nodeIds;
    /** The graph node of each node id, for {@link #indexOf}. */
    private LongRows nodeOfId;
    final Map<String, Integer> indexOfChunk = new HashMap<>();
    int entityCount, factCount, synonymCount, containsCount;
    /** Per chunk (0-based among chunks): the chunks of the documents it links to by title (AG_LINKS), in mention order. */
    int[][] linkedChunks;
    /** Chunks (0-based among chunks) of each document, in chunk order. */
    final Map<String, int[]> chunksOfDocument = new HashMap<>();
    /** The corpus's document titles, for the documents a question names (namedPassages). */
    TitleLinks titles;
    VectorMatrix factVectors, entityVectors, chunkVectors;
    /** The cost graph's fixed part: edges in the order facts, synonyms, contains, pseudo edges (one per chunk); labels for facts only. */
    CostGraph.Topology topology;
    /** The entities on a synonym edge, ascending: the only entities whose cosine with a query a cost reads. */
    int[] synonymEntities;
    private double[] pprWeight; // per topology edge
    /** The fact row of each fact relationship id: an index hit's row without a boxed map of every fact. */
    private LongRows factOfRel;
    private int[] chunkDegree;
    private volatile PersonalizedPageRank.Transition weightedTransition, unweightedTransition;

    private AgragSnapshot(String corpus, long version) {
        this.corpus = corpus;
        this.version = version;
    }

    int chunkCount() { return chunkIds.size(); }

    int edgeCount() {
        return factCount + synonymCount + containsCount + chunkIds.size();
    }

    /** Fact i (0-based; the topology's edge i), made from the topology. */
    FactEdge fact(int i) {
        return new FactEdge(topology.u[i], topology.v[i], topology.subject[i], topology.predicate[i], topology.object[i], topology.ref[i]);
    }

    /** Chunks linked to each entity (AG_CONTAINS degree), for HippoRAG 2's entity weighting (do not modify). */
    int[] chunkDegree() {
        return chunkDegree;
    }
    int nodeCount() { return entityCount + chunkIds.size() + 1; }

    /** The graph node of a Neo4j node id, or -1 when it is none of this snapshot's entities and chunks. */
    int indexOf(long nodeId) {
        return nodeOfId.rowOf(nodeId);
    }

    /** The fact row of a relationship, or -1 when it is not one of this snapshot's facts. */
    int factRow(long relId) {
        return factOfRel.rowOf(relId);
    }

    /** The chunk (0-based among chunks) of a node, or -1 when it is not one of this snapshot's chunks. */
    @SuppressWarnings("deprecation")
    int chunkRow(Node n) {
        int i = indexOf(n.getId());
        return i < entityCount ? -1 : i - entityCount;
    }
    int pseudo() { return entityCount + chunkIds.size(); }
    boolean isEntity(int i) { return i < entityCount; }

    private void buildTopology(List<LoadedFact> facts, List<PlainEdge> synonyms, List<PlainEdge> contains) {
        factCount = facts.size();
        synonymCount = synonyms.size();
        containsCount = contains.size();
        int m = edgeCount();
        int[] u = new int[m], v = new int[m];
        CostGraph.EdgeType[] type = new CostGraph.EdgeType[m];
        long[] ref = new long[m];
        String[] sub = new String[factCount], pred = new String[factCount], obj = new String[factCount];
        pprWeight = new double[m];
        int i = 0;
        for (LoadedFact f : facts) {
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
        factOfRel = LongRows.of(ref, factCount);
    }

    /** Keys ascending with the row each came from: a key's row by binary search, in two primitive arrays instead of a boxed map. */
    private record LongRows(long[] keys, int[] rows) {
        /** The first {@code count} keys of {@code keyOfRow}, row i's key at i (keys distinct). */
        static LongRows of(long[] keyOfRow, int count) {
            Integer[] order = new Integer[count];
            for (int i = 0; i < count; i++) order[i] = i;
            Arrays.sort(order, java.util.Comparator.comparingLong(i -> keyOfRow[i]));
            long[] keys = new long[count];
            int[] rows = new int[count];
            for (int j = 0; j < count; j++) {
                keys[j] = keyOfRow[order[j]];
                rows[j] = order[j];
            }
            return new LongRows(keys, rows);
        }

        int rowOf(long key) {
            int i = Arrays.binarySearch(keys, key);
            return i < 0 ? -1 : rows[i];
        }
    }

    @SuppressWarnings("deprecation")
    static AgragSnapshot load(Transaction tx, String corpus, long version) {
        AgragSnapshot s = new AgragSnapshot(corpus, version);
        List<float[]> entityVecs = new ArrayList<>(), chunkVecs = new ArrayList<>(), factVecs = new ArrayList<>();
        List<Long> ids = new ArrayList<>();
        // one instance per distinct string: a fact's subject and object are entity names, and its predicate and a
        // chunk's document repeat across rows
        Map<String, String> strings = new HashMap<>();
        java.util.function.UnaryOperator<String> one = x -> x == null ? null : strings.computeIfAbsent(x, k -> k);
        // a canonical order (entities by name, chunks by id, edges by endpoints and text) rather than the store's:
        // ties in every later step then break the same way however the corpus was ingested (the permutation check)
        // chunks removed or replaced since the build (docs/agrag.md#updates-and-deletes): an entity no present chunk
        // contains, and a fact no present chunk containing both its entities states, are left out until agrag.index
        // removes them, so no query serves what only removed text said
        Node meta = tx.findNode(AgragGraph.META, "corpus", corpus);
        boolean chunksChanged = meta != null && AgragLayer.SPEC.chunksChangedSinceBuild(tx, corpus, meta);
        for (Node n : sortedBy(tx.findNodes(AgragGraph.ENTITY, "corpus", corpus), "name")) {
            if (chunksChanged && !n.hasRelationship(org.neo4j.graphdb.Direction.INCOMING, AgragGraph.CONTAINS)) continue;
            ids.add(n.getId());
            s.names.add(one.apply((String) n.getProperty("name")));
            entityVecs.add((float[]) n.getProperty("embedding"));
        }
        s.entityCount = s.names.size();
        for (Node n : sortedBy(tx.findNodes(LexicalGraph.CHUNK, "corpus", corpus), "id")) {
            int idx = s.entityCount + s.chunkIds.size();
            ids.add(n.getId());
            String id = (String) n.getProperty("id");
            s.indexOfChunk.put(id, idx);
            s.chunkIds.add(id);
            s.chunkDocs.add(one.apply((String) n.getProperty("documentId")));
            chunkVecs.add((float[]) n.getProperty("embedding"));
        }
        s.nodeIds = ids.stream().mapToLong(Long::longValue).toArray();
        s.nodeOfId = LongRows.of(s.nodeIds, s.nodeIds.length);
        List<LoadedFact> facts = new ArrayList<>();
        List<PlainEdge> synonyms = new ArrayList<>(), contains = new ArrayList<>();
        for (int e = 0; e < s.entityCount; e++) {
            Node n = tx.getNodeById(s.nodeIds[e]);
            for (Relationship r : n.getRelationships(org.neo4j.graphdb.Direction.OUTGOING, AgragGraph.REL, AgragGraph.SYNONYM)) {
                int v = s.indexOf(r.getEndNode().getId());
                if (v < 0) continue;
                double w = ((Number) r.getProperty("pprWeight", 1.0)).doubleValue();
                if (r.isType(AgragGraph.REL)) {
                    if (chunksChanged && !statedByAPresentChunk(tx, s, r)) continue;
                    facts.add(new LoadedFact(e, v, one.apply((String) r.getProperty("subject")), one.apply((String) r.getProperty("predicate")),
                            one.apply((String) r.getProperty("object")), r.getId(), w, (float[]) r.getProperty("embedding", null)));
                } else {
                    synonyms.add(new PlainEdge(e, v, r.getId(), w));
                }
            }
            for (Relationship r : n.getRelationships(org.neo4j.graphdb.Direction.INCOMING, AgragGraph.CONTAINS)) {
                int c = s.indexOf(r.getStartNode().getId());
                if (c >= 0) contains.add(new PlainEdge(c, e, r.getId(), ((Number) r.getProperty("pprWeight", 1.0)).doubleValue()));
            }
        }
        strings.clear();
        facts.sort(LoadedFact.ORDER);
        for (LoadedFact f : facts) factVecs.add(f.vector());
        java.util.Comparator<PlainEdge> byEnds = java.util.Comparator.comparingInt(PlainEdge::u).thenComparingInt(PlainEdge::v);
        synonyms.sort(byEnds);
        contains.sort(byEnds);
        Map<String, List<Integer>> byDocument = new HashMap<>();
        for (int c = 0; c < s.chunkIds.size(); c++) byDocument.computeIfAbsent(s.chunkDocs.get(c), d -> new ArrayList<>()).add(c);
        byDocument.forEach((d, cs) -> s.chunksOfDocument.put(d, cs.stream().mapToInt(Integer::intValue).toArray()));
        s.linkedChunks = new int[s.chunkIds.size()][];
        for (int c = 0; c < s.chunkIds.size(); c++) {
            List<Integer> linked = new ArrayList<>();
            for (Relationship r : tx.getNodeById(s.nodeIds[s.entityCount + c]).getRelationships(org.neo4j.graphdb.Direction.OUTGOING, AgragGraph.LINKS)) {
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
        s.buildTopology(facts, synonyms, contains);
        s.factVectors = new VectorMatrix("agrag fact", factVecs);
        // an entity off every synonym edge has no cost that reads its cosine: its row stays empty (cosine 0, never read)
        for (int e = 0, k = 0; e < s.entityCount; e++) {
            if (k < s.synonymEntities.length && s.synonymEntities[k] == e) k++;
            else entityVecs.set(e, null);
        }
        s.entityVectors = new VectorMatrix("agrag entity", entityVecs);
        s.chunkVectors = new VectorMatrix("chunk", chunkVecs);
        return s;
    }

    /**
     * Whether a chunk the fact came from ({@code chunkIds}) is there and contains both its entities: a chunk replaced
     * under the same id has no AG_CONTAINS until the next build reads its new text.
     */
    @SuppressWarnings("deprecation")
    private static boolean statedByAPresentChunk(Transaction tx, AgragSnapshot s, Relationship fact) {
        for (String id : (String[]) fact.getProperty("chunkIds", new String[0])) {
            Integer c = s.indexOfChunk.get(id);
            if (c == null) continue;
            boolean subject = false, object = false;
            for (Relationship r : tx.getNodeById(s.nodeIds[c]).getRelationships(org.neo4j.graphdb.Direction.OUTGOING, AgragGraph.CONTAINS)) {
                subject |= r.getEndNode().equals(fact.getStartNode());
                object |= r.getEndNode().equals(fact.getEndNode());
            }
            if (subject && object) return true;
        }
        return false;
    }

    /** A fact edge and its embedding, kept together while the facts are put in canonical order. */
    private record LoadedFact(int u, int v, String s, String p, String o, long relId, double weight, float[] vector) {
        static final java.util.Comparator<LoadedFact> ORDER = java.util.Comparator.comparingInt(LoadedFact::u)
                .thenComparingInt(LoadedFact::v).thenComparing(LoadedFact::s).thenComparing(LoadedFact::p).thenComparing(LoadedFact::o);
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
        // over the topology's own rows, which never change
        t = PersonalizedPageRank.Transition.over(topology, weighted ? pprWeight : null, edgeCount() - chunkCount());
        if (weighted) weightedTransition = t;
        else unweightedTransition = t;
        return t;
    }
}
