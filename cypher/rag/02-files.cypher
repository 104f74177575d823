// Files into the graph: PDF, Office, HTML and Markdown from Neo4j's import directory (server.directories.import),
// then answers that cite the page and section. The demo copies three sample files to <import>/samples/;
// a test executes this file statement by statement.

CALL rag.ingest.files('samples/*', {corpus: 'manuals', metadata: {site: 'plant-b'}})
YIELD documentId, contentType, pages, chunks, status, error
RETURN documentId, contentType, pages, chunks, status, error;

// a rerun reads each file's bytes only: unchanged files are not parsed again
CALL rag.ingest.files('samples/*', {corpus: 'manuals', metadata: {site: 'plant-b'}})
YIELD documentId, status RETURN documentId, status;

// every chunk knows the pages it spans and its section: a citation a reader can follow
CALL rag.search('How is the pump mounted?', {corpus: 'manuals', k: 3})
YIELD rank, documentId, pages, section, text
RETURN rank, documentId, pages, section, left(text, 80) AS text;

// only the PDFs, and only documents of plant B: no chunk outside the filter is returned, and k still come back
CALL rag.search('maintenance interval', {corpus: 'manuals', k: 2, where: {contentType: 'application/pdf', site: {in: ['plant-b']}}})
YIELD documentId, pages, section, text
RETURN documentId, pages, section, left(text, 80) AS text;

// what the graph holds about each file
MATCH (d:Document {corpus: 'manuals'})
RETURN d.id AS file, d.title AS title, d.contentType AS type, d.pages AS pages, d.bytes AS bytes, d.site AS site
ORDER BY file;

// a folder people keep editing: one call reads changed and removed files again (deleteMissing) and builds again every
// layer built on the corpus, one row per step (none is built on manuals here: those rows say skipped)
CALL rag.refresh({corpus: 'manuals'})
YIELD step, status, result
RETURN step, status, result;
