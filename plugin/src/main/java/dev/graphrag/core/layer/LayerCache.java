package dev.graphrag.core.layer;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import java.util.function.Supplier;

/**
 * In-memory state derived from a layer (AGRAG's snapshot, say), owned by the runtime: one entry per (database,
 * corpus, layer), valid only for the stored versions it was loaded from. Each query passes the versions it reads
 * from the graph; another key replaces the entry, so a write made elsewhere (another member, another procedure)
 * is never answered from a stale entry, and an old version does not linger next to the new one.
 */
public final class LayerCache {
    private record Entry(Object key, Object value) {}

    private final Cache<String, Entry> entries;

    public LayerCache(long maxEntries) {
        this.entries = Caffeine.newBuilder().maximumSize(maxEntries).build();
    }

    /** The entry loaded for exactly this key, or a fresh load (one loader at a time per layer). */
    @SuppressWarnings("unchecked")
    public <T> T get(String database, String corpus, String layer, Object key, Supplier<T> loader) {
        String id = id(database, corpus, layer);
        Entry e = entries.getIfPresent(id);
        if (e != null && e.key().equals(key)) return (T) e.value();
        return (T) entries.asMap().compute(id, (k, old) -> old != null && old.key().equals(key) ? old : new Entry(key, loader.get())).value();
    }

    /** Forgets the layer's entry (after a drop, or when a loaded entry turned out stale). */
    public void invalidate(String database, String corpus, String layer) {
        entries.invalidate(id(database, corpus, layer));
    }

    private static String id(String database, String corpus, String layer) {
        return database + "\u0000" + corpus + "\u0000" + layer;
    }
}
