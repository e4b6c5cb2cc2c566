package dev.llmratelimit.demo;

import dev.llmratelimit.policy.Durations;
import org.eclipse.microprofile.config.Config;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** The demo's own {@code demo.*} properties: API keys and the mock endpoint's behaviour. */
record DemoSettings(Map<String, String> keys, long promptTokens, long completionTokens, Duration latency,
                    int streamChunks, Duration chunkDelay) {

    static DemoSettings from(Config config) {
        Map<String, String> keys = new HashMap<>();
        for (String name : config.getPropertyNames()) {
            if (name.startsWith("demo.keys.")) {
                keys.put(name.substring("demo.keys.".length()), config.getValue(name, String.class));
            }
        }
        return new DemoSettings(keys,
                config.getOptionalValue("demo.mock.prompt-tokens", Long.class).orElse(10L),
                config.getOptionalValue("demo.mock.completion-tokens", Long.class).orElse(20L),
                duration(config, "demo.mock.latency"),
                config.getOptionalValue("demo.mock.stream-chunks", Integer.class).orElse(5),
                duration(config, "demo.mock.chunk-delay"));
    }

    private static Duration duration(Config config, String name) {
        return Durations.parse(name, config.getOptionalValue(name, String.class).orElse("0ms"));
    }
}
