package dev.graphrag.hgmem;

import java.util.ArrayList;
import java.util.List;

/**
 * One memory point of HGMem (paper §3.3): a hyperedge over an ordered set of entity names with a description. A
 * unit keeps its id for life; an update rewrites it in place, a merge retires it (status {@code MERGED}, with the
 * ids of the units it went into) and the new unit records where it came from.
 */
public final class MemoryUnit {
    public enum Status { ACTIVE, MERGED }

    public enum Origin { INSERT, MERGE }

    private final String id;
    private final Origin origin;
    private final int createdStep;
    private final List<String> mergedFrom;
    private final List<String> mergedInto = new ArrayList<>();
    private List<String> vertices;
    private String description;
    private int updatedStep;
    private Status status = Status.ACTIVE;

    MemoryUnit(String id, List<String> vertices, String description, Origin origin, int step, List<String> mergedFrom) {
        this.id = id;
        this.vertices = List.copyOf(vertices);
        this.description = description;
        this.origin = origin;
        this.createdStep = step;
        this.updatedStep = step;
        this.mergedFrom = List.copyOf(mergedFrom);
    }

    /** A unit as a session stored it. */
    static MemoryUnit restore(String id, List<String> vertices, String description, Origin origin, int createdStep, int updatedStep, Status status,
                              List<String> mergedFrom, List<String> mergedInto) {
        MemoryUnit u = new MemoryUnit(id, vertices, description, origin, createdStep, mergedFrom);
        u.updatedStep = updatedStep;
        u.status = status;
        u.mergedInto.addAll(mergedInto);
        return u;
    }

    public String id() { return id; }
    public List<String> vertices() { return vertices; }
    public String description() { return description; }
    public Origin origin() { return origin; }
    public Status status() { return status; }
    public int createdStep() { return createdStep; }
    public int updatedStep() { return updatedStep; }
    /** The units a merged unit came from, in the group's order (empty for an inserted unit). */
    public List<String> mergedFrom() { return mergedFrom; }
    /** The units a retired unit went into: more than one when merge groups overlapped. */
    public List<String> mergedInto() { return List.copyOf(mergedInto); }

    void rewrite(List<String> newVertices, String newDescription, int step) {
        vertices = List.copyOf(newVertices);
        description = newDescription;
        updatedStep = step;
    }

    void retireInto(String unitId) {
        status = Status.MERGED;
        mergedInto.add(unitId);
    }
}
