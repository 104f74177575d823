package dev.graphrag.core.files;

import org.xml.sax.Attributes;
import org.xml.sax.helpers.DefaultHandler;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads the XHTML events a Tika parser emits (the same vocabulary for DOCX, PPTX, XLSX, ODT, RTF, EPUB and HTML)
 * into {@link MarkdownText}: h1-h6 become headings, tables pipe rows, list items "- " lines, paragraphs blocks;
 * Tika's page divs (XLSX sheets) and slide divs (PPTX) become pages. Text in head, script and style is dropped.
 */
final class XhtmlToMarkdown extends DefaultHandler {
    private static final Set<String> BLOCKS = Set.of("p", "div", "pre", "blockquote", "dt", "dd", "section", "article",
            "header", "footer", "aside", "main", "nav", "figcaption", "caption", "body", "ul", "ol", "dl", "address");
    private static final Set<String> SKIPPED = Set.of("head", "script", "style", "noscript", "template");
    /** A web page's furniture, not its content: navigation, sidebars, and the site's header and footer outside an article. */
    private static final Set<String> FURNITURE = Set.of("nav", "aside");
    private static final Set<String> FURNITURE_ROLES = Set.of("navigation", "banner", "contentinfo", "complementary", "search");
    private static final java.util.regex.Pattern BANNER = java.util.regex.Pattern.compile("(?i)cookie|consent|gdpr|newsletter-signup|skip-link");

    private final MarkdownText out;
    private final ParseLimits limits;
    private final StringBuilder inline = new StringBuilder();
    private int depth;
    private int skipped;
    /** Per open element, whether it began a skipped subtree (end tags carry no attributes). */
    private final java.util.ArrayDeque<Boolean> skips = new java.util.ArrayDeque<>();
    private int articles;
    private int headingLevel;
    private int listItems;
    private int tables;
    private List<List<String>> rows;
    private List<String> row;
    private StringBuilder cell;
    private int pages;
    private long seen;

    XhtmlToMarkdown(MarkdownText out, ParseLimits limits) {
        this.out = out;
        this.limits = limits;
    }

    int pages() {
        return pages;
    }

    @Override
    public void startElement(String uri, String localName, String qName, Attributes atts) {
        limits.checkDepth(++depth);
        String e = name(localName, qName);
        boolean skip = SKIPPED.contains(e) || skipped == 0 && furniture(e, atts);
        skips.push(skip);
        if (skip) {
            skipped++;
            return;
        }
        if (skipped > 0) return;
        if ("article".equals(e) || "main".equals(e)) articles++;
        String cls = atts.getValue("class");
        if ("div".equals(e) && ("page".equals(cls) || "slide-content".equals(cls))) {
            flush();
            out.pageBreak();
            pages++;
            return;
        }
        if (tables > 0) {
            switch (e) {
                case "table" -> tables++;
                case "tr" -> { if (tables == 1) row = new ArrayList<>(); }
                case "td", "th" -> { if (tables == 1) cell = new StringBuilder(); }
                case "br", "p", "div", "li" -> text(" ");
                default -> { }
            }
            return;
        }
        switch (e) {
            case "table" -> {
                flush();
                tables = 1;
                rows = new ArrayList<>();
            }
            case "h1", "h2", "h3", "h4", "h5", "h6" -> {
                flush();
                headingLevel = e.charAt(1) - '0';
            }
            case "li" -> {
                flush();
                listItems++;
            }
            case "br" -> inline.append('\n');
            default -> { if (BLOCKS.contains(e)) flush(); }
        }
    }

    @Override
    public void endElement(String uri, String localName, String qName) {
        depth--;
        String e = name(localName, qName);
        if (!skips.isEmpty() && skips.pop()) {
            skipped--;
            return;
        }
        if (skipped > 0) return;
        if ("article".equals(e) || "main".equals(e)) articles--;
        if (tables > 0) {
            switch (e) {
                case "table" -> {
                    if (--tables == 0) {
                        out.table(rows);
                        rows = null;
                    }
                }
                case "tr" -> {
                    if (tables == 1 && row != null) {
                        if (!row.isEmpty()) rows.add(row);
                        row = null;
                    }
                }
                case "td", "th" -> {
                    if (tables == 1 && cell != null) {
                        if (row == null) row = new ArrayList<>();
                        row.add(cell.toString());
                        cell = null;
                    }
                }
                default -> { }
            }
            return;
        }
        switch (e) {
            case "h1", "h2", "h3", "h4", "h5", "h6" -> {
                out.heading(headingLevel, inline.toString());
                inline.setLength(0);
                headingLevel = 0;
            }
            case "li" -> {
                out.listItem(inline.toString());
                inline.setLength(0);
                listItems--;
            }
            default -> { if (BLOCKS.contains(e)) flush(); }
        }
    }

    @Override
    public void characters(char[] ch, int start, int length) {
        if (skipped > 0) return;
        seen += length;
        limits.check(seen / 2 + out.length()); // raw characters include markup whitespace: half of them counts
        text(new String(ch, start, length));
    }

    @Override
    public void ignorableWhitespace(char[] ch, int start, int length) {
        characters(ch, start, length);
    }

    @Override
    public void endDocument() {
        flush();
    }

    private void text(String s) {
        if (tables > 0) {
            if (cell != null) cell.append(s);
        } else {
            inline.append(s);
        }
    }

    private void flush() {
        if (inline.length() == 0) return;
        String t = inline.toString();
        inline.setLength(0);
        if (headingLevel > 0) {
            inline.append(t); // a block inside a heading: keep collecting the heading
        } else if (listItems > 0) {
            out.listItem(t);
        } else {
            out.paragraph(t);
        }
    }

    /**
     * A web page's furniture (HTML read with every element kept): nav and aside, header and footer outside an article or
     * main, the landmark roles of navigation, banners and footers, and cookie or consent banners by their id or class.
     */
    private boolean furniture(String e, Attributes atts) {
        if (FURNITURE.contains(e)) return true;
        if (("header".equals(e) || "footer".equals(e)) && articles == 0) return true;
        String role = atts.getValue("role");
        if (role != null && FURNITURE_ROLES.contains(role.strip().toLowerCase(java.util.Locale.ROOT))) return true;
        String id = atts.getValue("id"), cls = atts.getValue("class");
        return id != null && BANNER.matcher(id).find() || cls != null && BANNER.matcher(cls).find();
    }

    private static String name(String localName, String qName) {
        String n = localName == null || localName.isEmpty() ? qName : localName;
        int colon = n.indexOf(':');
        return (colon >= 0 ? n.substring(colon + 1) : n).toLowerCase(Locale.ROOT);
    }
}
