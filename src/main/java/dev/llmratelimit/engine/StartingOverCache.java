package dev.llmratelimit.engine;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Values built on first use and kept for every later request, bounded: beyond {@code max} entries
 * the cache starts over (what it holds is cheap to build again, and the requests that find it empty
 * build only what they use).
 */
final class StartingOverCache<K, V> {

    private final Map<K, V> values = new ConcurrentHashMap<>();
    private final int max;

    StartingOverCache(int max) {
        this.max = max;
    }

    /** The value kept for the key, {@code null} when none is. */
    V get(K key) {
        return values.get(key);
    }

    /** Keeps the value for the key (after starting over when full) and returns it. */
    V keep(K key, V value) {
        if (values.size() >= max) {
            values.clear();
        }
        values.put(key, value);
        return value;
    }

    int size() {
        return values.size();
    }
}
