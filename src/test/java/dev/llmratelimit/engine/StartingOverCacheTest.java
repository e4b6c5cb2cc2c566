package dev.llmratelimit.engine;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StartingOverCacheTest {

    @Test
    void keepsUpToItsBoundThenStartsOverWithTheValueKept() {
        StartingOverCache<Integer, String> cache = new StartingOverCache<>(3);
        for (int i = 0; i < 3; i++) {
            assertThat(cache.keep(i, "v" + i)).isEqualTo("v" + i);
        }
        assertThat(cache.get(0)).isEqualTo("v0");
        assertThat(cache.size()).isEqualTo(3);
        cache.keep(3, "v3");
        assertThat(cache.size()).isEqualTo(1);
        assertThat(cache.get(3)).isEqualTo("v3");
        assertThat(cache.get(0)).isNull();
    }
}
