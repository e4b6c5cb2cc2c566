package dev.llmratelimit.outbound;

import dev.llmratelimit.engine.StoreUnavailableException;

import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps an application's own calls to its providers under their limits: token buckets per (provider,
 * model) for requests, tokens, input tokens and output tokens (RPM, TPM, ITPM, OTPM; those configured),
 * taken together or not at all. A call without capacity waits
 * for its place, first come first served (each acquisition reserves its share at once, so later callers
 * queue behind it), up to {@code max-wait}; a call that could never fit, or that would wait longer, fails
 * at once with {@link OutboundLimitException}. Build it with {@link #builder()} or from
 * {@code llm.ratelimit.outbound.*} properties ({@link OutboundLimiters}).
 * <p>
 * When the store cannot answer, the call goes ahead unlimited (logged at most once a minute): the
 * limiter's own trouble never stops the application's calls.
 */
public final class OutboundLimiter implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(OutboundLimiter.class.getName());
    private static final long LOG_EVERY_NANOS = 60_000_000_000L;

    /** A provider's settings and the store its buckets live in. */
    record Provider(ProviderSettings settings, OutboundStore store) {
    }

    private final Map<String, Provider> providers;
    private final Waiter waiter;
    private final Clock clock;
    private final List<OutboundStore> ownedStores;
    private final LearnedOutput learned = new LearnedOutput();
    /** Permit ids: unique across instances by the random prefix, cheap within one by the counter. */
    private final String idPrefix = UUID.randomUUID() + "-";
    private final AtomicLong ids = new AtomicLong();
    private final AtomicLong lastFailureLog = new AtomicLong(System.nanoTime() - LOG_EVERY_NANOS);

    OutboundLimiter(Map<String, Provider> providers, Waiter waiter, Clock clock, List<OutboundStore> ownedStores) {
        this.providers = Map.copyOf(providers);
        this.waiter = waiter;
        this.clock = clock;
        this.ownedStores = List.copyOf(ownedStores);
    }

    public static OutboundLimiterBuilder builder() {
        return new OutboundLimiterBuilder();
    }

    /** The time that providers' reset instants are read against. */
    public Clock clock() {
        return clock;
    }

    /** The provider whose {@code base-url} starts this URL (the longest such). */
    public Optional<ProviderSettings> providerFor(String url) {
        return providers.values().stream().map(Provider::settings).filter(p -> p.governs(url))
                .max(Comparator.comparingInt(p -> p.baseUrl().length()));
    }

    public ProviderSettings provider(String name) {
        return providerNamed(name).settings();
    }

    /**
     * The token estimate of a call: its prompt tokens as input, and {@code max_tokens} as output or, without
     * {@code max_tokens} (negative), the model's learned average output.
     */
    public Tokens estimate(String provider, String model, long promptTokens, long maxTokens) {
        ProviderSettings settings = provider(provider);
        long output = maxTokens >= 0 ? maxTokens
                : learned.average(new BucketKey(provider, model), settings.expectedOutputTokens());
        return new Tokens(Math.max(0, promptTokens), output);
    }

    /**
     * Waits, on this thread, for the call's place; the permit it returns must be settled or cancelled.
     *
     * @throws OutboundLimitException the call can never fit, or would wait beyond {@code max-wait}
     * @throws InterruptedException   while waiting; the place is given back
     */
    public Permit acquire(String provider, String model, Tokens estimate) throws InterruptedException {
        Call call = new Call(provider, model, estimate);
        Grant grant;
        try {
            grant = call.store().acquire(call.key, call.limits, call.id, estimate,
                    call.maxWaitMillis(), call.leaseMillis()).get();
        } catch (ExecutionException e) {
            return call.unbacked(e.getCause());
        }
        Permit permit = call.permit(grant);
        if (grant.waitMillis() > 0) {
            try {
                waiter.sleep(grant.waitMillis());
            } catch (InterruptedException e) {
                permit.cancel();
                throw e;
            }
        }
        return permit;
    }

    /**
     * The same without holding a thread while waiting: the future completes with the permit when the
     * call's place comes, or fails with {@link OutboundLimitException} at once. Cancelling the future
     * before then gives the place back.
     */
    public CompletableFuture<Permit> acquireAsync(String provider, String model, Tokens estimate) {
        Call call = new Call(provider, model, estimate);
        CompletableFuture<Permit> result = new CompletableFuture<>();
        call.store().acquire(call.key, call.limits, call.id, estimate, call.maxWaitMillis(), call.leaseMillis())
                .whenComplete((grant, failure) -> {
                    if (failure != null) {
                        result.complete(call.unbacked(failure));
                        return;
                    }
                    Permit permit;
                    try {
                        permit = call.permit(grant);
                    } catch (OutboundLimitException refused) {
                        result.completeExceptionally(refused);
                        return;
                    }
                    CompletableFuture<Void> place = grant.waitMillis() > 0
                            ? waiter.after(grant.waitMillis()) : CompletableFuture.completedFuture(null);
                    place.thenRun(() -> {
                        if (!result.complete(permit)) {
                            permit.cancel();
                        }
                    });
                });
        return result;
    }

    /** Lowers the pair's buckets to what the provider's answer said. */
    public CompletableFuture<Void> correct(String provider, String model, Correction correction) {
        if (correction.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        Provider p = providerNamed(provider);
        BucketLimits limits = p.settings().limits(model);
        return quietly(p.store().correct(new BucketKey(provider, model), limits, correction.forLimits(limits)), null);
    }

    CompletableFuture<Boolean> finish(Permit permit, BucketLimits limits, Tokens actualTokens, boolean refundRequest) {
        if (permit.id() == null) {
            return CompletableFuture.completedFuture(false);
        }
        OutboundStore store = providerNamed(permit.key().provider()).store();
        return quietly(store.settle(permit.key(), limits, permit.id(), actualTokens, refundRequest), false);
    }

    void learnOutput(BucketKey key, long completionTokens) {
        learned.learn(key, completionTokens, providerNamed(key.provider()).settings().expectedOutputTokens());
    }

    @Override
    public void close() {
        ownedStores.forEach(OutboundStore::close);
    }

    private Provider providerNamed(String name) {
        Provider provider = providers.get(name);
        if (provider == null) {
            throw new IllegalArgumentException("No outbound provider named " + name + "; configured: " + providers.keySet());
        }
        return provider;
    }

    /** A settlement or correction the store could not take is logged, never thrown at the caller. */
    private <T> CompletableFuture<T> quietly(CompletableFuture<T> operation, T onFailure) {
        return operation.exceptionally(failure -> {
            logStoreFailure(failure);
            return onFailure;
        });
    }

    private void logStoreFailure(Throwable failure) {
        long now = System.nanoTime();
        long last = lastFailureLog.get();
        if (now - last >= LOG_EVERY_NANOS && lastFailureLog.compareAndSet(last, now)) {
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            LOG.log(System.Logger.Level.WARNING, "The outbound limiter's store did not answer; calls go ahead unlimited: "
                    + cause.getMessage());
        }
    }

    /** One acquisition: which buckets, and what the store's answer makes of it. */
    private final class Call {
        final BucketKey key;
        final BucketLimits limits;
        final String id = idPrefix + ids.incrementAndGet();
        final Tokens estimate;
        final Provider provider;

        Call(String providerName, String model, Tokens estimate) {
            this.provider = providerNamed(providerName);
            this.key = new BucketKey(providerName, model);
            this.limits = provider.settings().limits(model);
            this.estimate = estimate;
        }

        OutboundStore store() {
            return provider.store();
        }

        long maxWaitMillis() {
            return provider.settings().maxWait().toMillis();
        }

        long leaseMillis() {
            return provider.settings().lease().toMillis();
        }

        Permit permit(Grant grant) {
            return switch (grant.outcome()) {
                case TAKEN -> new Permit(OutboundLimiter.this, key, limits, id, estimate, grant.waitMillis());
                case NEVER_FITS -> throw new OutboundLimitException(OutboundLimitException.Reason.NEVER_FITS, key,
                        estimate, grant.shortOf(), java.time.Duration.ZERO);
                case WAIT_TOO_LONG -> throw new OutboundLimitException(OutboundLimitException.Reason.WAIT_TOO_LONG, key,
                        estimate, grant.shortOf(), java.time.Duration.ofMillis(grant.waitMillis()));
            };
        }

        /** The store failed: the call goes ahead with a permit that settles nothing. */
        Permit unbacked(Throwable failure) {
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            if (!(cause instanceof StoreUnavailableException)) {
                throw cause instanceof RuntimeException runtime ? runtime : new IllegalStateException(cause);
            }
            logStoreFailure(cause);
            return new Permit(OutboundLimiter.this, key, limits, null, estimate, 0);
        }
    }
}
