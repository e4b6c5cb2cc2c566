package dev.llmratelimit.budget;

import dev.llmratelimit.policy.PolicyException;

import java.math.BigDecimal;
import java.math.RoundingMode;

/** Money as whole micro-dollars ({@code long}): parsed from decimal text exactly, shown as USD decimals. */
public final class Micros {

    public static final long PER_DOLLAR = 1_000_000L;

    private static final BigDecimal MILLION = BigDecimal.valueOf(PER_DOLLAR);
    private static final int SHOWN_DECIMALS = 4;

    private Micros() {
    }

    /**
     * A budget in USD ({@code 25}, {@code 10.50}, {@code 0.000001}) as micro-dollars.
     *
     * @throws PolicyException for text that is not a decimal, a negative amount, more than 6 decimals
     *                         (finer than a micro-dollar) or an amount beyond any real budget
     */
    public static long parseUsd(String property, String text) {
        BigDecimal usd = decimal(property, text);
        BigDecimal micros = usd.multiply(MILLION);
        if (micros.stripTrailingZeros().scale() > 0) {
            throw new PolicyException(property, text, "finer than a micro-dollar (at most 6 decimals)");
        }
        if (micros.compareTo(BigDecimal.valueOf(Long.MAX_VALUE / 4)) > 0) {
            throw new PolicyException(property, text, "too large for a budget");
        }
        return micros.longValueExact();
    }

    /** A non-negative decimal (no NaN, no infinity, no exponent trickery beyond what BigDecimal reads). */
    static BigDecimal decimal(String property, String text) {
        BigDecimal value;
        try {
            value = new BigDecimal(text == null ? "" : text.trim());
        } catch (NumberFormatException e) {
            throw new PolicyException(property, text, "expected a decimal amount in USD such as 2.50");
        }
        if (value.signum() < 0) {
            throw new PolicyException(property, text, "must not be negative");
        }
        if (value.scale() < -18 || value.precision() - value.scale() > 18) {
            throw new PolicyException(property, text, "too large");
        }
        return value;
    }

    /**
     * USD with at least 4 decimals and as many as the amount needs, exactly: 10002100 becomes
     * {@code 10.0021}, 10000001 {@code 10.000001}, 0 {@code 0.0000}.
     */
    public static String usd(long micros) {
        BigDecimal usd = BigDecimal.valueOf(micros, 6).stripTrailingZeros();
        if (usd.scale() < SHOWN_DECIMALS) {
            usd = usd.setScale(SHOWN_DECIMALS, RoundingMode.UNNECESSARY);
        }
        return usd.toPlainString();
    }

    /** {@code a + b}, saturating at {@link Long#MAX_VALUE} (money figures are never negative). */
    public static long plus(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }
}
