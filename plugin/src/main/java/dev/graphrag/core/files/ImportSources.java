package dev.graphrag.core.files;

import dev.graphrag.core.RagException;
import dev.graphrag.core.config.ConfigReader;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Turns rag.ingest.files' {@code source} into files, before anything is read: paths and globs relative to Neo4j's
 * import directory ({@code server.directories.import}), {@code file:} URLs inside it (as LOAD CSV reads them), and
 * http(s) URLs whose prefix {@code graphrag.ingest.allowedUrls} lists. A path that would leave the import
 * directory ({@code ..}, an absolute path, a symbolic link pointing out) is an error, never a read.
 */
public final class ImportSources {
    /** One file to read: its document id (path relative to the import directory with '/', or the URL), and where it is. */
    public record Source(String id, Path path, URI url, long bytes) {
        public boolean remote() {
            return url != null;
        }
    }

    /**
     * What the source entries named: the files they matched, the patterns they were (for deleteMissing), the single
     * paths that name no file, and the globs that match none (each with what the import directory holds instead).
     */
    public record Resolved(List<Source> files, List<PathMatcher> patterns, List<String> missing, Map<String, String> unmatched) {}

    private static final Pattern GLOB_CHARS = Pattern.compile("[*?\\[{]");
    private static final Pattern WINDOWS_ABSOLUTE = Pattern.compile("^[A-Za-z]:.*");

    private ImportSources() {}

    /** The entries of {@code source}: a STRING or a non-empty LIST<STRING>. */
    public static List<String> entries(Object source) {
        if (source instanceof String s) return List.of(s);
        if (source instanceof List<?> list && !list.isEmpty() && list.stream().allMatch(x -> x instanceof String)) {
            return list.stream().map(String.class::cast).toList();
        }
        throw new RagException("rag.ingest.files: source must be a path or glob relative to the import directory, a file: or"
                + " http(s) URL, or a non-empty list of them; got " + (source instanceof List<?> l && l.isEmpty() ? "an empty list"
                : ConfigReader.typeName(source)));
    }

    public static Resolved resolve(List<String> entries, Path importDir, List<String> allowedUrls) {
        Map<String, Source> files = new LinkedHashMap<>();
        List<PathMatcher> patterns = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        Map<String, String> unmatched = new LinkedHashMap<>();
        Path root = realRoot(importDir);
        for (String entry : entries) {
            if (entry == null || entry.isBlank()) throw new RagException("rag.ingest.files: a source entry is empty");
            String lower = entry.toLowerCase(Locale.ROOT);
            if (lower.startsWith("http://") || lower.startsWith("https://")) {
                files.putIfAbsent(entry, new Source(entry, null, url(entry, allowedUrls), -1));
                continue;
            }
            String relative = lower.startsWith("file:") ? fileUrlPath(entry) : entry;
            if (lower.matches("^[a-z][a-z0-9+.-]*:.*") && !lower.startsWith("file:") && !WINDOWS_ABSOLUTE.matcher(entry).matches()) {
                throw new RagException("rag.ingest.files: '" + entry + "' has a scheme this procedure does not read; use a path in the"
                        + " import directory, a file: URL or an http(s) URL");
            }
            checkRelative(entry, relative);
            String normalised = relative.replace('\\', '/');
            while (normalised.startsWith("./")) normalised = normalised.substring(2);
            if (GLOB_CHARS.matcher(normalised).find()) {
                PathMatcher m = glob(normalised);
                patterns.add(m);
                List<Source> matched = walk(root, m);
                if (matched.isEmpty()) unmatched.put(entry, "no file in the import directory matches '" + entry + "'; " + holds(root));
                for (Source s : matched) files.putIfAbsent(s.id(), s);
            } else {
                Path p = root.resolve(normalised).normalize();
                String id = root.relativize(p).toString().replace('\\', '/');
                patterns.add(path -> path.toString().replace('\\', '/').equals(id));
                if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                    missing.add(id);
                    continue;
                }
                files.putIfAbsent(id, inside(root, p, entry));
            }
        }
        return new Resolved(List.copyOf(files.values()), patterns, missing, unmatched);
    }

    /** What the import directory holds at its top, so that a pattern matching nothing can be corrected: at most ten entries. */
    static String holds(Path root) {
        List<String> names = new ArrayList<>();
        long more = 0;
        try (java.util.stream.Stream<Path> top = Files.list(root)) {
            for (Path p : top.sorted().toList()) {
                if (names.size() == 10) {
                    more++;
                    continue;
                }
                names.add(p.getFileName() + (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) ? "/" : ""));
            }
        } catch (IOException e) {
            return "the import directory cannot be listed";
        }
        if (names.isEmpty()) return "the import directory is empty";
        return "the import directory holds " + String.join(", ", names) + (more > 0 ? " and " + more + " more" : "");
    }

    /** A glob as shells read it: {@code a/**&#47;*.pdf} also matches the PDFs directly in a/ (Java's glob needs a directory there). */
    static PathMatcher glob(String pattern) {
        PathMatcher m = FileSystems.getDefault().getPathMatcher("glob:" + pattern);
        if (!pattern.contains("**/")) return m;
        PathMatcher flat = FileSystems.getDefault().getPathMatcher("glob:" + pattern.replace("**/", ""));
        return p -> m.matches(p) || flat.matches(p);
    }

    private static Path realRoot(Path importDir) {
        if (importDir == null) {
            throw new RagException("rag.ingest.files: the server has no import directory; set server.directories.import in neo4j.conf"
                    + " (the directory LOAD CSV reads) and put the files there");
        }
        try {
            return importDir.toRealPath();
        } catch (IOException e) {
            throw new RagException("rag.ingest.files: the import directory " + importDir + " does not exist or cannot be read");
        }
    }

    private static void checkRelative(String entry, String relative) {
        String r = relative.replace('\\', '/');
        if (r.startsWith("/") || WINDOWS_ABSOLUTE.matcher(r).matches()) {
            throw new RagException("rag.ingest.files: '" + entry + "' is an absolute path; sources are relative to the import directory"
                    + " (server.directories.import)");
        }
        for (String part : r.split("/")) {
            if (part.equals("..")) {
                throw new RagException("rag.ingest.files: '" + entry + "' leaves the import directory ('..' is not allowed)");
            }
        }
    }

    /** file:///a/b.pdf and file:a/b.pdf both name a/b.pdf in the import directory, as LOAD CSV reads them. */
    private static String fileUrlPath(String entry) {
        try {
            URI u = new URI(entry);
            String path = u.getPath() != null ? u.getPath() : u.getSchemeSpecificPart();
            if (u.getHost() != null && !u.getHost().isEmpty()) {
                throw new RagException("rag.ingest.files: '" + entry + "' names a host; file: URLs name files in the import directory");
            }
            while (path.startsWith("/")) path = path.substring(1);
            if (path.isEmpty()) throw new RagException("rag.ingest.files: '" + entry + "' names no file");
            return path;
        } catch (URISyntaxException e) {
            throw new RagException("rag.ingest.files: '" + entry + "' is not a valid file: URL (" + e.getReason() + ")");
        }
    }

    private static URI url(String entry, List<String> allowed) {
        URI u;
        try {
            u = new URI(entry);
        } catch (URISyntaxException e) {
            throw new RagException("rag.ingest.files: '" + entry + "' is not a valid URL (" + e.getReason() + ")");
        }
        if (u.getUserInfo() != null) throw new RagException("rag.ingest.files: URLs with user information are not allowed: '" + u.getHost() + "'");
        for (String prefix : allowed) {
            if (!prefix.isBlank() && entry.startsWith(prefix)) return u;
        }
        throw new RagException("rag.ingest.files: the URL '" + entry + "' is not allowed: graphrag.ingest.allowedUrls "
                + (allowed.stream().allMatch(String::isBlank) ? "lists no prefix (no URL may be fetched)" : "lists none of its prefixes")
                + "; an administrator adds a prefix there, or the file goes into the import directory");
    }

    /** p (already normalised under root) as a source, after checking that its real path stays inside the import directory. */
    private static Source inside(Path root, Path p, String entry) {
        try {
            Path real = p.toRealPath();
            if (!real.startsWith(root)) {
                throw new RagException("rag.ingest.files: '" + entry + "' leaves the import directory (a symbolic link to "
                        + "a place outside it); only files inside server.directories.import are read");
            }
            if (!Files.isRegularFile(real)) {
                throw new RagException("rag.ingest.files: '" + entry + "' is a directory, not a file; use a glob such as '"
                        + root.relativize(p).toString().replace('\\', '/') + "/**' for the files under it");
            }
            String id = root.relativize(p).toString().replace('\\', '/');
            return new Source(id, real, null, Files.size(real));
        } catch (IOException e) {
            throw new RagException("rag.ingest.files: cannot read '" + entry + "': " + e.getMessage());
        }
    }

    /**
     * The regular files under root whose relative path the glob matches, in path order. Symbolic links are not
     * followed into directories; a linked file is checked like any other (its target must be inside root).
     */
    private static List<Source> walk(Path root, PathMatcher m) {
        List<Source> out = new ArrayList<>();
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    Path rel = root.relativize(file);
                    if (m.matches(rel) && (attrs.isRegularFile() || attrs.isSymbolicLink())) {
                        try {
                            out.add(inside(root, file, rel.toString().replace('\\', '/')));
                        } catch (RagException e) {
                            if (attrs.isSymbolicLink()) throw e; // a link out of the directory is refused, named
                        }
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException exc) {
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new RagException("rag.ingest.files: cannot list the import directory: " + e.getMessage());
        }
        out.sort(java.util.Comparator.comparing(Source::id));
        return out;
    }
}
