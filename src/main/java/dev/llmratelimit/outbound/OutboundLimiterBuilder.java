package dev.llmratelimit.outbound;

import dev.llmratelimit.outbound.memory.MemoryOutboundStore;
import dev.llmratelimit.outbound.redis.RedisOutboundStore;
import dev.llmratelimit.store.redis.RedisStoreSettings;

import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Builds an {@link OutboundLimiter}:
 * <pre>{@code
 * OutboundLimiter limiter = OutboundLimiter.builder()
 *         .provider("openai", p -> p.baseUrl("https://api.openai.com/v1").rpm(500).tpm(150_000)
 *                 .model("gpt-4o-mini", 5_000, 2_000_000))
 *         .build();
 * }</pre>
 * Providers on the {@code redis} store share one Redisson client made from {@link #redis} settings
 * (or the store given to {@link #store}); the limiter closes what it made.
 */
public final class OutboundLimiterBuilder {

    private final Map<String, ProviderSettings> providers = new LinkedHashMap<>();
    private final Map<ProviderSettings.StoreKind, OutboundStore> stores = new EnumMap<>(ProviderSettings.StoreKind.class);
    private Clock clock = Clock.systemUTC();
    private Waiter waiter = Waiter.SYSTEM;
    private RedisStoreSettings redisSettings;

    OutboundLimiterBuilder() {
    }

    public OutboundLimiterBuilder provider(String name, Consumer<ProviderBuilder> spec) {
        ProviderBuilder builder = new ProviderBuilder(name);
        spec.accept(builder);
        return provider(builder.build());
    }

    public OutboundLimiterBuilder provider(ProviderSettings settings) {
        providers.put(settings.name(), settings);
        return this;
    }

    /** The clock of the memory store (tests move it); Redis uses its own server clock. */
    public OutboundLimiterBuilder clock(Clock clock) {
        this.clock = clock;
        return this;
    }

    /** How callers wait (tests move a clock instead of sleeping). */
    public OutboundLimiterBuilder waiter(Waiter waiter) {
        this.waiter = waiter;
        return this;
    }

    /** A store the caller made and closes, for every provider of that kind. */
    public OutboundLimiterBuilder store(ProviderSettings.StoreKind kind, OutboundStore store) {
        stores.put(kind, store);
        return this;
    }

    /** How to reach Redis ({@code llm.ratelimit.redis.*}) for providers on the redis store. */
    public OutboundLimiterBuilder redis(RedisStoreSettings settings) {
        this.redisSettings = settings;
        return this;
    }

    public OutboundLimiter build() {
        List<OutboundStore> owned = new ArrayList<>();
        Map<ProviderSettings.StoreKind, OutboundStore> used = new EnumMap<>(stores);
        Map<String, OutboundLimiter.Provider> built = new LinkedHashMap<>();
        for (ProviderSettings settings : providers.values()) {
            OutboundStore store = used.computeIfAbsent(settings.store(), kind -> {
                OutboundStore made = kind == ProviderSettings.StoreKind.REDIS
                        ? RedisOutboundStore.create(redisSettings != null ? redisSettings : RedisStoreSettings.parse(Map.of()))
                        : new MemoryOutboundStore(clock);
                owned.add(made);
                return made;
            });
            built.put(settings.name(), new OutboundLimiter.Provider(settings, store));
        }
        return new OutboundLimiter(built, waiter, clock, owned);
    }
}
