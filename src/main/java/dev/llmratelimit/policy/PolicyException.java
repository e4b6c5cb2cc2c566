package dev.llmratelimit.policy;

/** Invalid configuration: the message names the property and the value that was refused. */
public final class PolicyException extends IllegalArgumentException {

    public PolicyException(String property, String value, String problem) {
        super("Invalid configuration " + property + "=" + value + ": " + problem);
    }
}
