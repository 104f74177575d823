package dev.graphrag.hgmem;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * HGMem's working memory for one question (paper §3.3): the ordered list of active memory units the LLM
 * addresses by position, evolved by update, insert and merge. Retired units stay reachable by id for provenance.
 * Knows nothing of Neo4j or the LLM; names arrive raw from LLM output and are normalised here.
 */
public final class HypergraphMemory {
    /** What an update may do to a unit's vertex set (docs/hgmem.md#where-the-paper-and-the-code-differ): keep it (the paper), replace it (the code), or add to it. */
    public enum VertexPolicy { KEEP, REPLACE, UNION }

    /** One merge group of the E3 reply: positions in the listing the LLM saw, and the merged unit's description. */
    public record MergeGroup(List<Integer> indices, String description) {}

    private final List<MemoryUnit> active = new ArrayList<>();
    private final Map<String, MemoryUnit> all = new LinkedHashMap<>();
    private final Supplier<String> ids;
    private final List<String> warnings = new ArrayList<>();

    /** @param ids unit ids (UUIDs in the graph; a counter in tests) */
    public HypergraphMemory(Supplier<String> ids) {
        this.ids = ids;
    }

    /** A memory as a session stored it: the active units in listing order, and the retired ones. */
    static HypergraphMemory restore(Supplier<String> ids, List<MemoryUnit> active, List<MemoryUnit> retired) {
        HypergraphMemory m = new HypergraphMemory(ids);
        for (MemoryUnit u : active) {
            m.active.add(u);
            m.all.put(u.id(), u);
        }
        for (MemoryUnit u : retired) m.all.put(u.id(), u);
        return m;
    }

    /** The active units in listing order: position i is what the LLM calls point (i). */
    public List<MemoryUnit> listing() { return List.copyOf(active); }

    public MemoryUnit unit(String id) { return all.get(id); }

    /** Every unit ever created, retired ones included, in creation order. */
    public List<MemoryUnit> allUnits() { return List.copyOf(all.values()); }

    /** Problems met while applying LLM output (an index outside the listing, ...): recorded, never thrown. */
    public List<String> warnings() { return List.copyOf(warnings); }

    /**
     * Entity names as the graph keys them (docs/hgmem.md#where-the-paper-and-the-code-differ): HTML entities unescaped, control characters
     * and surrounding quotes stripped, trimmed, upper-cased; empty names dropped and duplicates removed, order kept.
     */
    public static List<String> resolve(List<String> names) {
        Set<String> out = new LinkedHashSet<>();
        for (String raw : names) {
            if (raw == null) continue;
            String n = unescapeHtml(raw).replaceAll("\\p{Cntrl}", "").trim();
            while (n.length() >= 2 && isQuote(n.charAt(0)) && isQuote(n.charAt(n.length() - 1))) n = n.substring(1, n.length() - 1).trim();
            n = n.toUpperCase(Locale.ROOT);
            if (!n.isEmpty() && !n.chars().allMatch(c -> isQuote((char) c))) out.add(n); // a lone quote names nothing
        }
        return List.copyOf(out);
    }

    private static boolean isQuote(char c) {
        return c == '"' || c == '\'' || c == '\u201c' || c == '\u201d' || c == '\u2018' || c == '\u2019';
    }

    private static String unescapeHtml(String s) {
        return s.replace("&quot;", "\"").replace("&#39;", "'").replace("&apos;", "'").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
    }

    /** Appends a unit (its names resolved); a unit whose names all resolve to nothing is not inserted. */
    public MemoryUnit insert(List<String> names, String description, int step) {
        List<String> v = resolve(names);
        if (v.isEmpty()) {
            warnings.add("an inserted memory point named no entity and was dropped: " + description);
            return null;
        }
        MemoryUnit u = new MemoryUnit(ids.get(), v, description, MemoryUnit.Origin.INSERT, step, List.of());
        active.add(u);
        all.put(u.id(), u);
        return u;
    }

    /** Rewrites the unit at {@code index} of the current listing; an index outside it is a warning and changes nothing. */
    public boolean update(int index, List<String> names, String description, int step, VertexPolicy policy) {
        if (index < 0 || index >= active.size()) {
            warnings.add("update of memory point " + index + " ignored: the listing has " + active.size() + " points");
            return false;
        }
        MemoryUnit u = active.get(index);
        List<String> named = resolve(names);
        List<String> v = switch (policy) {
            case KEEP -> u.vertices();
            case REPLACE -> named.isEmpty() ? u.vertices() : named;
            case UNION -> {
                List<String> both = new ArrayList<>(u.vertices());
                both.addAll(named);
                yield List.copyOf(new LinkedHashSet<>(both));
            }
        };
        u.rewrite(v, description, step);
        return true;
    }

    /**
     * Eq. 8 on the listing the LLM saw (paper Eq. 8; invalid groups as docs/hgmem.md#where-the-paper-and-the-code-differ says): each group's valid, distinct indices in its order; a group
     * with fewer than two is skipped. The merged unit's vertices are the ordered union of its sources'. Sources leave
     * the active list (groups may overlap: a shared source feeds both), and the new units follow the untouched ones
     * in group order. Returns the new units.
     */
    public List<MemoryUnit> merge(List<MergeGroup> groups, int step) {
        List<MemoryUnit> snapshot = List.copyOf(active);
        Set<Integer> consumed = new LinkedHashSet<>();
        List<MemoryUnit> created = new ArrayList<>();
        for (MergeGroup g : groups) {
            Set<Integer> idx = new LinkedHashSet<>();
            for (Integer i : g.indices()) {
                if (i != null && i >= 0 && i < snapshot.size()) idx.add(i);
                else warnings.add("merge index " + i + " ignored: the listing has " + snapshot.size() + " points");
            }
            if (idx.size() < 2) {
                warnings.add("merge group " + g.indices() + " skipped: it needs two valid points");
                continue;
            }
            List<String> vertices = new ArrayList<>();
            List<String> from = new ArrayList<>();
            for (int i : idx) {
                vertices.addAll(snapshot.get(i).vertices());
                from.add(snapshot.get(i).id());
            }
            MemoryUnit m = new MemoryUnit(ids.get(), resolve(vertices), g.description(), MemoryUnit.Origin.MERGE, step, from);
            for (int i : idx) snapshot.get(i).retireInto(m.id());
            all.put(m.id(), m);
            created.add(m);
            consumed.addAll(idx);
        }
        active.clear();
        for (int i = 0; i < snapshot.size(); i++) if (!consumed.contains(i)) active.add(snapshot.get(i));
        active.addAll(created);
        return created;
    }

    /** absentEntityPolicy 'drop' (paper footnote 2): the names leave every active unit; a unit left with no name leaves the memory. */
    public void dropNames(Set<String> names) {
        List<MemoryUnit> keep = new ArrayList<>();
        for (MemoryUnit u : active) {
            List<String> v = u.vertices().stream().filter(x -> !names.contains(x)).toList();
            if (v.size() != u.vertices().size()) u.rewrite(v, u.description(), u.updatedStep());
            if (v.isEmpty()) {
                warnings.add("memory point " + u.id() + " named only entities the graph lacks and was dropped");
                all.remove(u.id());
            } else {
                keep.add(u);
            }
        }
        active.clear();
        active.addAll(keep);
    }

    /** The ids of the units at these listing positions (concern targets persist as ids: docs/hgmem.md#where-the-paper-and-the-code-differ); invalid positions are skipped. */
    public List<String> idsAt(List<Integer> indices) {
        List<String> out = new ArrayList<>();
        for (Integer i : indices) if (i != null && i >= 0 && i < active.size() && !out.contains(active.get(i).id())) out.add(active.get(i).id());
        return out;
    }

    /** V_M: the distinct vertices of the active units, in listing order. */
    public List<String> vertices() {
        Set<String> v = new LinkedHashSet<>();
        for (MemoryUnit u : active) v.addAll(u.vertices());
        return List.copyOf(v);
    }

    /** Vertex memberships over the active units (a vertex in two units counts twice). */
    public int memberships() {
        int n = 0;
        for (MemoryUnit u : active) n += u.vertices().size();
        return n;
    }

    /** Avg-N_v of the paper's Table 3: memberships per active unit (0 for an empty memory). */
    public double averageVerticesPerUnit() {
        return active.isEmpty() ? 0 : (double) memberships() / active.size();
    }

    /** N_M(v): the other vertices sharing an active unit with v. */
    public Set<String> memoryNeighbours(String vertex) {
        Set<String> out = new LinkedHashSet<>();
        for (MemoryUnit u : active) if (u.vertices().contains(vertex)) out.addAll(u.vertices());
        out.remove(vertex);
        return out;
    }

    /** The anchors of a local investigation: the vertices of the target units (by id; retired or unknown ids add nothing). */
    public List<String> anchors(List<String> unitIds) {
        Set<String> out = new LinkedHashSet<>();
        for (String id : unitIds) {
            MemoryUnit u = all.get(id);
            if (u != null && u.status() == MemoryUnit.Status.ACTIVE) out.addAll(u.vertices());
        }
        return List.copyOf(out);
    }

    /** The memory as the paper's §3.3 lists it: the listing the prompts show. */
    public String render() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < active.size(); i++) {
            MemoryUnit u = active.get(i);
            b.append("- Point (").append(i).append(")\nInvolved Objects: ").append(String.join(", ", u.vertices()))
                    .append("\nDescription: ").append(u.description()).append('\n');
        }
        return b.toString();
    }
}
