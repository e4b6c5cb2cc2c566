package dev.llmratelimit.engine;

import java.util.Arrays;

/**
 * How a decision is finished in the store, once: the usage to record (each group's reservation is
 * replaced by it, in the window the reservation went into; a group that reserved nothing records
 * it in its live window), slots released. A {@link #CANCEL} undoes the decision altogether (its
 * requests, reservations and slots), for a decision nobody acted on (a timed-out decision, a
 * later hash slot that refused).
 *
 * <p>{@code usage} holds per windowed {@link Dimension} what the response used ({@link #KEEP}:
 * keep every reservation as the charge, a success of unknown usage); its requests figure is
 * never read. {@code micros} likewise for money.
 *
 * @param late   the decision's lease has ended, so the store may have forgotten it: then the usage
 *               is recorded in the live windows all the same
 * @param unanswered the decision's answer never came (the request was served under
 *               {@code on-store-failure=fail-open}): if the decision ran, late, it is settled as any
 *               other; if the store has no record of it, the request and its usage are recorded in
 *               the live windows and the request id is marked settled, so a decision that runs
 *               later still counts nothing; served means counted, once
 */
public record Settlement(long[] usage, long micros, boolean cancel, boolean late, boolean unanswered) {

    public static final long KEEP = -1;

    public static final Settlement CANCEL = new Settlement(new long[Dimension.WINDOWED.size()], 0, true, false, false);

    public Settlement {
        usage = usage.clone();
        for (int i = 0; i < usage.length; i++) {
            usage[i] = kept(usage[i]);
        }
        micros = kept(micros);
    }

    /** Tokens (input and output reservations kept as the charge) and money. */
    public Settlement(long tokens, long micros, boolean cancel, boolean late) {
        this(new long[] {0, tokens, KEEP, KEEP}, micros, cancel, late, false);
    }

    private static long kept(long figure) {
        return figure == KEEP ? KEEP : Saturating.clamp(Math.max(0, figure));
    }

    /** Tokens as {@code rate-limit-type} counts them, input and output tokens, and money. */
    public static Settlement of(long tokens, long inputTokens, long outputTokens, long micros) {
        return new Settlement(new long[] {0, tokens, inputTokens, outputTokens}, micros, false, false, false);
    }

    /** Tokens and money; input and output token reservations are kept as the charge. */
    public static Settlement of(long tokens, long micros) {
        return of(tokens, KEEP, KEEP, micros);
    }

    /** What the response used of one windowed dimension, {@link #KEEP} when unknown. */
    public long used(Dimension dimension) {
        return usage[dimension.index()];
    }

    public long tokens() {
        return used(Dimension.TOKENS);
    }

    /** This settlement for a decision whose lease has ended. */
    public Settlement asLate() {
        return cancel ? this : new Settlement(usage, micros, false, true, unanswered);
    }

    /** This settlement for a served request whose decision got no answer (see {@code unanswered}). */
    public Settlement asUnanswered() {
        return cancel ? this : new Settlement(usage, micros, false, late, true);
    }

    /** The change a group's count of a token dimension sees: the usage minus what the group reserved. */
    public long delta(Dimension dimension, long reserved) {
        long used = used(dimension);
        return cancel ? -reserved : used == KEEP ? 0 : used - reserved;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Settlement that && Arrays.equals(usage, that.usage) && micros == that.micros
                && cancel == that.cancel && late == that.late && unanswered == that.unanswered;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(usage) * 31 + Long.hashCode(micros) + (cancel ? 1 : 0) + (late ? 2 : 0) + (unanswered ? 4 : 0);
    }

    @Override
    public String toString() {
        return "Settlement[usage=" + Arrays.toString(usage) + ", micros=" + micros + ", cancel=" + cancel + ", late=" + late
                + ", unanswered=" + unanswered + "]";
    }
}
