package dev.llmratelimit.engine;

/**
 * Whether a group's limits are checked: always, only while the plan's {@link GroupKind#MODEL}
 * group is saturated at or above a threshold (a pool), or never (tracked only: counted, so usage
 * is complete when enforcement begins).
 */
public record Enforcement(Mode mode, double threshold) {

    public enum Mode { ALWAYS, WHEN_SATURATED, TRACKED }

    public static final Enforcement ALWAYS = new Enforcement(Mode.ALWAYS, 0);
    public static final Enforcement TRACKED = new Enforcement(Mode.TRACKED, 0);

    public static Enforcement whenSaturated(double threshold) {
        return new Enforcement(Mode.WHEN_SATURATED, threshold);
    }

    /** Whether the limits apply at this saturation of the plan's model group. */
    public boolean enforcedAt(double saturation) {
        return mode == Mode.ALWAYS || mode == Mode.WHEN_SATURATED && saturation >= threshold;   // TRACKED: never
    }
}
