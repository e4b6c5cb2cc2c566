package dev.llmratelimit.policy;

/**
 * Invalid configuration: the message names the property and, unless the property may hold a
 * secret ({@link SecretProperties}), the value that was refused.
 */
public final class PolicyException extends IllegalArgumentException {

    public PolicyException(String property, String value, String problem) {
        super(SecretProperties.mayHoldSecret(property)
                ? "Invalid configuration " + property + " (value not shown): " + problem
                : "Invalid configuration " + property + "=" + value + ": " + problem);
    }

    /** For a setting whose value is never quoted, such as a key of a LiteLLM file: the problem says what was wrong with its type. */
    public PolicyException(String property, String problem) {
        super("Invalid configuration " + property + ": " + problem);
    }
}
