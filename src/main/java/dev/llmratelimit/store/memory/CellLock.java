package dev.llmratelimit.store.memory;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The lock of one or more cells: every window of a model (with its pools) shares one, since a
 * plan that touches one of them touches all, and each lock taken costs a fenced write to give
 * back. Locks are taken in the order of their {@link #order} number, so two plans never deadlock.
 */
final class CellLock extends ReentrantLock {

    private static final AtomicLong CREATED = new AtomicLong();

    /** Where the lock comes in the order every plan takes its locks in: unique, fixed. */
    final long order = CREATED.incrementAndGet();
}
