package dev.llmratelimit.identity;

/** Priority names are customer data: only a few generic names may appear in logs. */
public final class PriorityNames {

    public static final String REDACTED = "REDACTED";

    private PriorityNames() {
    }

    /**
     * The name itself if it is {@code low}, {@code medium}, {@code high} or {@code default} (exact,
     * case-sensitive), {@code none} for {@code null}, else {@value #REDACTED}.
     */
    public static String forLog(String priority) {
        if (priority == null) {
            return "none";
        }
        return switch (priority) {
            case "low", "medium", "high", "default" -> priority;
            default -> REDACTED;
        };
    }
}
