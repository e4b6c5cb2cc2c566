package dev.llmratelimit.config;

import dev.llmratelimit.policy.SecretProperties;

import java.util.Map;

/**
 * Takes the values of secret-bearing properties out of a failure that is about to be logged or
 * shown: a JDBC driver's "No suitable driver found for jdbc:...?password=..." quotes its URL whole.
 */
final class SecretValues {

    private static final String HIDDEN = "(hidden)";
    /** A shorter value would also hide the same letters wherever else they occur in the message. */
    private static final int SHORTEST_HIDDEN = 4;

    private SecretValues() {
    }

    static String hide(String message, Map<String, String> properties) {
        String shown = message;
        for (Map.Entry<String, String> entry : properties.entrySet()) {
            String value = entry.getValue() == null ? "" : entry.getValue().trim();
            if (shown != null && value.length() >= SHORTEST_HIDDEN && SecretProperties.mayHoldSecret(entry.getKey())) {
                shown = shown.replace(value, HIDDEN);
            }
        }
        return shown;
    }

    /**
     * The failure with the secret values out of its message, keeping its place in the code; its
     * causes are left behind, since their messages (the driver's, the client's) quote the same values.
     */
    static RuntimeException hidden(RuntimeException failure, Map<String, String> properties) {
        String message = String.valueOf(failure.getMessage());
        String shown = hide(message, properties);
        Throwable cause = failure.getCause();
        boolean causeShowsSecret = cause != null && !hide(String.valueOf(cause), properties).equals(String.valueOf(cause));
        if (shown.equals(message) && !causeShowsSecret) {
            return failure;
        }
        IllegalStateException withoutSecrets = new IllegalStateException(shown);
        withoutSecrets.setStackTrace(failure.getStackTrace());
        return withoutSecrets;
    }
}
