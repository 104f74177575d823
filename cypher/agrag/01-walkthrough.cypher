// AGRAG walk-through, LLM-free: ingest, index, draw the reasoning subgraph, rank chunks.
// In Neo4j Browser, the agrag.mcmi statement draws the subgraph (nodes + relationships).

CALL rag.ingest([
  {id: 'carter', title: 'John Carter', text: 'John Carter fought beside Tars Tarkas on Barsoom. John Carter later married Dejah Thoris, the princess of Helium.'},
  {id: 'helium', title: 'Helium (Barsoom)', text: 'Helium is a city on Barsoom. Dejah Thoris is the granddaughter of Tardos Mors, the jeddak of Helium.'},
  {id: 'tharks', title: 'Tars Tarkas', text: 'Tars Tarkas is the jeddak of the Tharks. The Tharks are green Martians who live on Barsoom.'},
  {id: 'xodar', title: 'Xodar', text: 'Xodar is a dator of the First Born. Issus gave Xodar to John Carter as a slave after Carter defeated Xodar.'}
], {corpus: 'agrag_demo'}) YIELD documentId, status RETURN documentId, status;

// What the statistics-based extraction makes of some texts (nothing is written): try thresholds before indexing.
CALL agrag.extractEntities([
  'John Carter fought beside Tars Tarkas on Barsoom.',
  'Tars Tarkas is the jeddak of the Tharks.'
], {entityThreshold: 0.2}) YIELD index, entity, score RETURN index, entity, score;

CALL agrag.index({corpus: 'agrag_demo', relations: 'cooccurrence'})
YIELD chunks, entities, facts, containsEdges, synonymEdges, titleLinks, llmCalls, ms
RETURN chunks, entities, facts, containsEdges, synonymEdges, titleLinks, llmCalls, ms;

// Title links: which chunk names which document's title (John Carter's chunk names Tars Tarkas and Helium).
MATCH (c:Chunk {corpus: 'agrag_demo'})-[l:AG_LINKS]->(d:Document)
RETURN c.documentId AS chunkOf, l.anchor AS anchor, d.id AS linksTo ORDER BY chunkOf, linksTo;

CALL agrag.info({corpus: 'agrag_demo'}) YIELD corpus, version, entities, facts, projected
RETURN corpus, version, entities, facts, projected;

// The facts a question maps to: the terminals of its reasoning subgraph.
CALL agrag.mapFacts('Who is the grandfather of the wife of John Carter?', {corpus: 'agrag_demo'})
YIELD rank, subject, predicate, object, similarity, kept RETURN rank, subject, predicate, object, similarity, kept;

// After a server restart: load the query snapshot and re-create the GDS projection before the first query.
CALL agrag.project({corpus: 'agrag_demo'}) YIELD graphName, projected, nodeCount, relationshipCount
RETURN graphName, projected, nodeCount, relationshipCount;

CALL agrag.mcmi('Who is the grandfather of the wife of John Carter?', {corpus: 'agrag_demo'})
YIELD terminals, nodes, relationships, graphStrings, pathChunkIds, nodeCount, edgeCount, ratio
RETURN terminals, nodes, relationships, graphStrings, pathChunkIds, nodeCount, edgeCount, ratio;

CALL agrag.retrieve('Who is the grandfather of the wife of John Carter?', {corpus: 'agrag_demo', k: 3})
YIELD rank, documentId, score, source RETURN rank, documentId, score, source;

// PageRank by the push from the terminals is the default; the sweeps over the whole graph, to pprTolerance, give the
// exact vector (a tighter pushEpsilon brings the push closer to it).
CALL agrag.mcmi('Who is the grandfather of the wife of John Carter?', {corpus: 'agrag_demo', pprEngine: 'native'})
YIELD graphStrings, nodeCount RETURN graphStrings, nodeCount;

CALL agrag.mcmi('Who is the grandfather of the wife of John Carter?', {corpus: 'agrag_demo', pushEpsilon: 1e-9})
YIELD graphStrings, nodeCount RETURN graphStrings, nodeCount;

// The same subgraph with PPR computed by GDS on the projection instead of the plugin's engine.
CALL agrag.mcmi('Who is the grandfather of the wife of John Carter?', {corpus: 'agrag_demo', pprEngine: 'gds'})
YIELD graphStrings, nodeCount RETURN graphStrings, nodeCount;

CALL agrag.retrieve('Who is the jeddak of the Tharks?', {corpus: 'agrag_demo', k: 2, mode: 'ppr'})
YIELD rank, documentId, score, source RETURN rank, documentId, score, source;

// Every stage on the caller's thread (concurrency 1) instead of two threads: the same subgraph, for a server that
// should not spread one query over two cores.
CALL agrag.mcmi('Who is the grandfather of the wife of John Carter?', {corpus: 'agrag_demo', concurrency: 1})
YIELD graphStrings, nodeCount RETURN graphStrings, nodeCount;

// Chunks and facts ranked from the vector indexes (indexFrom 0: at any size) instead of scanned: the 200 nearest,
// re-scored exactly; on a corpus this small they cover it, so the subgraph is the scan's.
CALL agrag.mcmi('Who is the grandfather of the wife of John Carter?', {corpus: 'agrag_demo', indexFrom: 0, indexCandidates: 200})
YIELD graphStrings, nodeCount RETURN graphStrings, nodeCount;

// The same from the snapshot's own k-means cells (cellsFrom 0: at any size), no index call: the members of the
// query's cellProbes nearest cells; here the probes reach every cell, so again the scan's subgraph.
CALL agrag.mcmi('Who is the grandfather of the wife of John Carter?', {corpus: 'agrag_demo', cellsFrom: 0, cellProbes: 8})
YIELD graphStrings, nodeCount RETURN graphStrings, nodeCount;

// A question naming a title: that document comes right after the densest chunk (source 'named'),
// then one the densest chunk links to (source 'link'), then the PPR ranking.
CALL agrag.retrieve('Whom did the warrior who fought beside Tars Tarkas marry?', {corpus: 'agrag_demo', k: 4, mode: 'ppr'})
YIELD rank, documentId, score, source RETURN rank, documentId, score, source;

// Above exactSynonymsUpTo entities (200,000 by default) the synonym search compares each entity only with the members
// of its synonymProbes nearest k-means cells instead of every other entity; 0 here forces it on this small corpus.
// The layer's AgMeta node records the search in synonymMethod; indexing under the other plan searches again.
CALL agrag.index({corpus: 'agrag_demo', relations: 'cooccurrence', exactSynonymsUpTo: 0, synonymProbes: 2})
YIELD entities, synonymEdges RETURN entities, synonymEdges;

// Remove the AGRAG layer again (documents and chunks stay).
CALL agrag.drop({corpus: 'agrag_demo'}) YIELD nodesDeleted, relationshipsDeleted RETURN nodesDeleted, relationshipsDeleted;
