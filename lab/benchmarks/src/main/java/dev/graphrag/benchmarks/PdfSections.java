package dev.graphrag.benchmarks;

import dev.graphrag.core.embed.TextTokenizer;
import dev.graphrag.core.files.FileParsers;
import dev.graphrag.core.files.FileProblem;
import dev.graphrag.core.files.ParseLimits;
import dev.graphrag.core.files.ParsedFile;
import dev.graphrag.core.text.Chunker;
import dev.graphrag.core.text.StructuralChunker;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The sections rag.ingest.files gives a folder's PDFs, for checking by hand (docs/files.md#pdf-headings): per file its
 * pages, headings and chunks (the structural chunker at its file default, 1,200 characters), then a seeded sample of
 * chunks with the page and section each would cite, to compare with the file open beside it.
 * <p>
 * {@code DIR [--sample N] [--seed S]}: every .pdf under DIR.
 */
public final class PdfSections {
    private static final Pattern WORD = Pattern.compile("\\S+");

    private PdfSections() {}

    public static void main(String[] argv) throws Exception {
        if (argv.length == 0) throw new IllegalArgumentException("usage: PdfSections DIR [--sample N] [--seed S]");
        Path dir = Path.of(argv[0]);
        int sample = 3;
        long seed = 20261202L;
        for (int i = 1; i + 1 < argv.length; i += 2) {
            switch (argv[i]) {
                case "--sample" -> sample = Integer.parseInt(argv[i + 1]);
                case "--seed" -> seed = Long.parseLong(argv[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + argv[i]);
            }
        }
        List<Path> pdfs;
        try (Stream<Path> files = Files.walk(dir)) {
            pdfs = files.filter(f -> f.toString().toLowerCase(Locale.ROOT).endsWith(".pdf")).sorted().toList();
        }
        report(dir, pdfs, sample, new Random(seed), System.out);
    }

    static void report(Path dir, List<Path> pdfs, int sample, Random random, PrintStream out) {
        Chunker chunker = new StructuralChunker(WORDS, 1200, 120);
        out.println("| file | pages | headings | chunks | status |");
        out.println("|---|---|---|---|---|");
        List<String> samples = new ArrayList<>();
        for (Path pdf : pdfs) {
            String name = dir.relativize(pdf).toString();
            try {
                ParsedFile p = FileParsers.parse(pdf, name, new ParseLimits(20_000_000, 120, () -> false));
                List<Chunker.Chunk> chunks = chunker.chunk(p.text(), () -> false);
                out.printf("| %s | %d | %d | %d | read |%n", name, p.layout().pageCount(), p.layout().headings().size(), chunks.size());
                for (int k = 0; k < Math.min(sample, chunks.size()); k++) {
                    Chunker.Chunk c = chunks.get(random.nextInt(chunks.size()));
                    long[] pages = p.layout().pages(c.start(), c.end());
                    String text = c.text().replaceAll("\\s+", " ");
                    samples.add(String.format("%s | p. %s | %s | %s", name, pages == null ? "-" : java.util.Arrays.toString(pages),
                            p.layout().section(c.start()), text.substring(0, Math.min(100, text.length()))));
                }
            } catch (FileProblem e) {
                out.printf("| %s | - | - | - | %s: %s |%n", name, e.status(), e.getMessage());
            }
        }
        out.println();
        samples.forEach(out::println);
    }

    /** Words as tokens: the chunker counts them only to report each chunk's size. */
    private static final TextTokenizer WORDS = new TextTokenizer() {
        @Override
        public List<Token> tokenize(String text) {
            List<Token> out = new ArrayList<>();
            Matcher m = WORD.matcher(text);
            while (m.find()) out.add(new Token(0, m.start(), m.end()));
            return out;
        }

        @Override
        public int[] frame(int[] body) {
            return body;
        }

        @Override
        public int specialTokens() {
            return 0;
        }

        @Override
        public int padId() {
            return 0;
        }
    };
}
