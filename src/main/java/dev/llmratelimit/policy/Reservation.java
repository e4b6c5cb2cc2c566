package dev.llmratelimit.policy;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The share of a model's capacity kept for one priority, as written in configuration:
 * {@code 0.9}, {@code percent:0.9}, {@code rpm:9}, {@code tpm:900} or {@code {"type":"rpm","value":9}}.
 */
public record Reservation(Type type, double value) {

    public enum Type { PERCENT, RPM, TPM }

    private static final Pattern JSON_FORM = Pattern.compile(
            "\\{\\s*\"type\"\\s*:\\s*\"([^\"]*)\"\\s*,\\s*\"value\"\\s*:\\s*([^\\s}]+)\\s*}"
                    + "|\\{\\s*\"value\"\\s*:\\s*([^\\s,]+)\\s*,\\s*\"type\"\\s*:\\s*\"([^\"]*)\"\\s*}");

    public static Reservation parse(String property, String text) {
        String trimmed = text.trim();
        String typeName;
        String number;
        Matcher json = JSON_FORM.matcher(trimmed);
        if (json.matches()) {
            typeName = json.group(1) != null ? json.group(1) : json.group(4);
            number = json.group(2) != null ? json.group(2) : json.group(3);
        } else if (trimmed.startsWith("{")) {
            throw new PolicyException(property, text, "expected {\"type\":\"percent|rpm|tpm\",\"value\":N}");
        } else {
            int colon = trimmed.indexOf(':');
            typeName = colon < 0 ? "percent" : trimmed.substring(0, colon).trim();
            number = colon < 0 ? trimmed : trimmed.substring(colon + 1).trim();
        }
        Type type = switch (typeName.toLowerCase(Locale.ROOT)) {
            case "percent" -> Type.PERCENT;
            case "rpm" -> Type.RPM;
            case "tpm" -> Type.TPM;
            default -> throw new PolicyException(property, text,
                    "unknown reservation type '" + typeName + "' (expected percent, rpm or tpm)");
        };
        double value;
        try {
            value = Double.parseDouble(number);
        } catch (NumberFormatException e) {
            throw new PolicyException(property, text, "not a number: '" + number + "'");
        }
        if (Double.isNaN(value) || Double.isInfinite(value) || value < 0) {
            throw new PolicyException(property, text, "a reservation must be a finite number >= 0");
        }
        if (type == Type.PERCENT && value > 1.0) {
            throw new PolicyException(property, text, "a fraction must lie between 0 and 1 (0.9 means 90 %)");
        }
        return new Reservation(type, value);
    }

    /** This reservation as a fraction of the model's capacity. */
    public double share(String property, ModelGroup model) {
        return switch (type) {
            case PERCENT -> value;
            case RPM -> {
                if (model.rpm() == 0) {
                    throw new PolicyException(property, "rpm:" + value,
                            "model '" + model.name() + "' has no rpm configured");
                }
                yield Math.min(1.0, value / model.rpm());
            }
            case TPM -> {
                if (model.tpm() == 0) {
                    throw new PolicyException(property, "tpm:" + value,
                            "model '" + model.name() + "' has no tpm configured");
                }
                yield Math.min(1.0, value / model.tpm());
            }
        };
    }
}
