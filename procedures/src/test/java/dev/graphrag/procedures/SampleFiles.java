package dev.graphrag.procedures;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * The demo's sample files (a three-page PDF manual with headings, a DOCX guide with a table, Markdown notes), copied
 * into an import directory's {@code samples/} folder, where cypher/rag/02-files.cypher and the demo read them.
 */
public final class SampleFiles {
    public static final List<String> NAMES = List.of("pump-manual.pdf", "valve-guide.docx", "site-notes.md");
    public static final String FOLDER = "samples";

    private SampleFiles() {}

    /** Copies the samples into importDir/samples (replacing older copies); returns that folder. */
    public static Path copyTo(Path importDir) throws IOException {
        Path dir = Files.createDirectories(importDir.resolve(FOLDER));
        for (String name : NAMES) {
            try (InputStream in = SampleFiles.class.getResourceAsStream("/sample-files/" + name)) {
                if (in == null) throw new IOException("the demo jar lacks /sample-files/" + name);
                Files.copy(in, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return dir;
    }
}
