package dev.llmratelimit.engine;

/**
 * How a decision is finished in the store, once: the usage to record (each group's reservation is
 * replaced by it, in the window the reservation went into; a group that reserved nothing records
 * it in its live window), slots released. A {@link #CANCEL} undoes the decision altogether (its
 * requests, reservations and slots), for a decision nobody acted on (a timed-out decision, a
 * later hash slot that refused).
 *
 * @param tokens {@link #KEEP}: keep every reservation as the charge (a success of unknown usage)
 * @param micros {@link #KEEP} likewise for money
 * @param late   the decision's lease has ended, so the store may have forgotten it: then the usage
 *               is recorded in the live windows all the same
 * @param unanswered the decision's answer never came (the request was served under
 *               {@code on-store-failure=fail-open}): if the decision ran, late, it is settled as any
 *               other; if the store has no record of it, the request and its usage are recorded in
 *               the live windows and the request id is marked settled, so a decision that runs
 *               later still counts nothing; served means counted, once
 */
public record Settlement(long tokens, long micros, boolean cancel, boolean late, boolean unanswered) {

    public static final long KEEP = -1;

    public static final Settlement CANCEL = new Settlement(0, 0, true, false);

    public Settlement {
        tokens = tokens == KEEP ? KEEP : Saturating.clamp(Math.max(0, tokens));
        micros = micros == KEEP ? KEEP : Saturating.clamp(Math.max(0, micros));
    }

    public Settlement(long tokens, long micros, boolean cancel, boolean late) {
        this(tokens, micros, cancel, late, false);
    }

    public static Settlement of(long tokens, long micros) {
        return new Settlement(tokens, micros, false, false);
    }

    /** This settlement for a decision whose lease has ended. */
    public Settlement asLate() {
        return cancel ? this : new Settlement(tokens, micros, false, true, unanswered);
    }

    /** This settlement for a served request whose decision got no answer (see {@code unanswered}). */
    public Settlement asUnanswered() {
        return cancel ? this : new Settlement(tokens, micros, false, late, true);
    }

    /** The change a group's tokens see: the usage minus what the group reserved. */
    public long tokenDelta(long reserved) {
        return cancel ? -reserved : tokens == KEEP ? 0 : tokens - reserved;
    }
}
