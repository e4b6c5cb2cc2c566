package dev.llmratelimit.observe;

import dev.llmratelimit.engine.DecisionObserver;
import dev.llmratelimit.store.CircuitBreaker;
import dev.llmratelimit.store.PendingCompensations;

import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * How the counter store is doing: which kind it is, the state of each of its circuits, and the
 * failures the engine reported since start (counted here, as an observer of the engine).
 */
public final class StoreHealth implements DecisionObserver {

    private static final StoreOperation[] OPERATIONS = StoreOperation.values();

    private final String kind;
    private final Supplier<Map<String, CircuitBreaker>> circuits;
    private final Clock clock;
    private final PendingCompensations compensations;
    private final LongSupplier localDecisions;
    private final LongAdder[] failures = new LongAdder[OPERATIONS.length];
    private volatile long lastFailureMillis = Long.MIN_VALUE;
    private volatile StoreOperation lastFailedOperation;

    /**
     * @param kind     {@code memory} or {@code redis}
     * @param circuits each circuit the store's calls go through, by a name for the status page and metrics
     */
    public StoreHealth(String kind, Map<String, CircuitBreaker> circuits, Clock clock) {
        this(kind, circuits, null, clock);
    }

    /** @param compensations the queue of settlements the store did not confirm, or {@code null} for a store without */
    public StoreHealth(String kind, Map<String, CircuitBreaker> circuits, PendingCompensations compensations, Clock clock) {
        this(kind, constant(Map.copyOf(circuits)), compensations, clock);
    }

    /** @param circuits the circuits as they are now (a cluster's circuits come with its nodes) */
    public StoreHealth(String kind, Supplier<Map<String, CircuitBreaker>> circuits, PendingCompensations compensations,
                       Clock clock) {
        this(kind, circuits, compensations, null, clock);
    }

    private StoreHealth(String kind, Supplier<Map<String, CircuitBreaker>> circuits, PendingCompensations compensations,
                        LongSupplier localDecisions, Clock clock) {
        this.kind = kind;
        this.circuits = circuits;
        this.compensations = compensations;
        this.localDecisions = localDecisions;
        this.clock = clock;
        for (int i = 0; i < failures.length; i++) {
            failures[i] = new LongAdder();
        }
    }

    /** Watches store failures only: uses no elapsed time. */
    @Override
    public boolean timesDecisions() {
        return false;
    }

    @Override
    public void storeFailed(StoreOperation operation) {
        failures[operation.ordinal()].increment();
        lastFailedOperation = operation;
        lastFailureMillis = clock.millis();
    }

    public String kind() {
        return kind;
    }

    /** The same health with one more circuit (a second store beside the counter store); counts nothing yet. */
    public StoreHealth withCircuit(String name, CircuitBreaker breaker) {
        Supplier<Map<String, CircuitBreaker>> these = circuits;
        return new StoreHealth(kind, () -> {
            Map<String, CircuitBreaker> more = new java.util.TreeMap<>(these.get());
            more.put(name, breaker);
            return more;
        }, compensations, localDecisions, clock);
    }

    /**
     * The same health over a store that decides on this instance's share while the shared store does
     * not answer ({@code on-store-failure=local}); counts nothing yet.
     *
     * @param decisions the decisions made on the local share since start
     */
    public StoreHealth withLocalDecisions(LongSupplier decisions) {
        return new StoreHealth(kind, circuits, compensations, decisions, clock);
    }

    private static Supplier<Map<String, CircuitBreaker>> constant(Map<String, CircuitBreaker> circuits) {
        return () -> circuits;
    }

    /** The circuits by name; empty for a store without (memory). */
    public Map<String, CircuitBreaker> circuits() {
        return circuits.get();
    }

    /** The settlements waiting for the store to answer again, and their fates; empty for a store without (memory). */
    public Optional<PendingCompensations> compensations() {
        return Optional.ofNullable(compensations);
    }

    /** Decisions made on this instance's share since start; empty unless {@code on-store-failure=local}. */
    public OptionalLong localDecisions() {
        return localDecisions == null ? OptionalLong.empty() : OptionalLong.of(localDecisions.getAsLong());
    }

    /** Failures of one operation since start. */
    public long failures(StoreOperation operation) {
        return failures[operation.ordinal()].sum();
    }

    /** When the last failure happened, or {@code null} if none did. */
    public Instant lastFailure() {
        long millis = lastFailureMillis;
        return millis == Long.MIN_VALUE ? null : Instant.ofEpochMilli(millis);
    }

    /** The operation that failed last, or {@code null}. */
    public StoreOperation lastFailedOperation() {
        return lastFailedOperation;
    }

    /** No circuit is open. */
    public boolean healthy() {
        return circuits.get().values().stream().noneMatch(CircuitBreaker::isOpen);
    }
}
