package dev.llmratelimit.http;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.Refusal;
import dev.llmratelimit.engine.Verdict;

import dev.llmratelimit.usage.EndpointShape;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiConsumer;

/** The {@code x-ratelimit-*} and {@code retry-after} headers of docs/errors.md, handed to any header setter. */
public final class RateLimitHeaderValues {

    public static final String PRIORITY = "x-ratelimit-priority";
    public static final String SHADOW_DECISION = "x-ratelimit-shadow-decision";
    private static final String PREFIX = "x-ratelimit-";
    private static final String[] LIMIT = namesByDimension(PREFIX + "limit-", "");
    private static final String[] REMAINING = namesByDimension(PREFIX + "remaining-", "");
    private static final String[] RESET = namesByDimension(PREFIX + "reset-", "");
    private static final String[] ANTHROPIC_LIMIT = namesByDimension("anthropic-ratelimit-", "-limit");
    private static final String[] ANTHROPIC_REMAINING = namesByDimension("anthropic-ratelimit-", "-remaining");
    private static final String[] ANTHROPIC_RESET = namesByDimension("anthropic-ratelimit-", "-reset");

    private RateLimitHeaderValues() {
    }

    /** A header name per windowed dimension, by {@link Dimension#index()}. */
    private static String[] namesByDimension(String before, String after) {
        String[] names = new String[Dimension.WINDOWED.size()];
        for (Dimension dimension : Dimension.WINDOWED) {
            names[dimension.index()] = before + dimension.headerSuffix() + after;
        }
        return names;
    }

    /** Whether {@code name} is one of this limiter's headers' family: {@code x-ratelimit-*}, any case. */
    public static boolean isRateLimitHeader(String name) {
        return name != null && name.regionMatches(true, 0, PREFIX, 0, PREFIX.length());
    }

    /**
     * Headers of a call that goes on to the application, for a request of this shape: on
     * {@code /v1/messages} each limit's figures also under Anthropic's names.
     */
    public static void forwarded(Admission admission, EndpointShape shape, BiConsumer<String, String> header) {
        forwarded(admission, header);
        Verdict verdict = admission.verdict();
        if (shape == EndpointShape.MESSAGES && admission.plan() != null && verdict != null) {
            anthropic(verdict, Instant.now(), header);
        }
    }

    /** Headers of a call that goes on to the application (admitted, or let through by shadow mode). */
    public static void forwarded(Admission admission, BiConsumer<String, String> header) {
        if (admission.plan() == null) {
            return;
        }
        priority(admission, header);
        Verdict verdict = admission.verdict();
        if (verdict == null) {
            return;                                  // fail-open: the pool is known, the figures are not
        }
        limits(admission, header);
        if (admission.isShadow()) {
            header.accept(SHADOW_DECISION, verdict.admitted() ? "admitted"
                    : "refused; limit=" + limitName(verdict.refusal()) + "; retry-after=" + verdict.retryAfterSeconds());
        }
    }

    /** {@code model-requests}, {@code pool-tokens}, {@code key-parallel-requests}, {@code team-budget}, ... */
    private static String limitName(Refusal refusal) {
        if (refusal.dimension() == Dimension.MONEY) {
            return BudgetTexts.limitName(refusal.group());
        }
        return refusal.group().kind().label() + '-' + refusal.dimension().label().replace('_', '-');
    }

    /** Headers of a refused call (outcome {@code REFUSED}): by a model or pool limit, or by a caller limit. */
    public static void refused(Admission admission, BiConsumer<String, String> header) {
        Verdict verdict = admission.verdict();
        header.accept("retry-after", Long.toString(verdict.retryAfterSeconds()));
        priority(admission, header);
        limits(admission, header);
        if (verdict.refusedBy() != null && verdict.refusedBy().isPool()) {
            header.accept("x-ratelimit-saturation", RefusalMessages.percent(verdict.saturation(), 2));
        }
    }

    /**
     * Anthropic's names for the figures of a refusal's headers, for {@code /v1/messages}:
     * {@code anthropic-ratelimit-<dimension>-limit|remaining|reset} beside each
     * {@code x-ratelimit-limit-<dimension>}, the reset as an RFC 3339 time ({@code retry-after} from now).
     */
    public static Map<String, String> withAnthropicNames(Map<String, String> headers) {
        String retryAfter = headers.get("retry-after");
        if (retryAfter == null) {
            return headers;
        }
        Instant reset = Instant.now().plusSeconds(Long.parseLong(retryAfter));
        Map<String, String> named = new LinkedHashMap<>(headers);
        for (Dimension dimension : Dimension.WINDOWED) {
            String limit = headers.get(LIMIT[dimension.index()]);
            if (limit != null) {
                anthropic(named::put, dimension, limit, headers.get(REMAINING[dimension.index()]), reset);
            }
        }
        return Collections.unmodifiableMap(named);
    }

    private static void anthropic(Verdict verdict, Instant now, BiConsumer<String, String> header) {
        for (Dimension dimension : Dimension.WINDOWED) {
            if (verdict.limit(dimension) >= 0) {
                anthropic(header, dimension, Long.toString(verdict.limit(dimension)),
                        Long.toString(verdict.remaining(dimension)), now.plusMillis(verdict.resetMillis(dimension)));
            }
        }
    }

    private static void anthropic(BiConsumer<String, String> header, Dimension dimension, String limit, String remaining,
                                  Instant reset) {
        int index = dimension.index();
        header.accept(ANTHROPIC_LIMIT[index], limit);
        header.accept(ANTHROPIC_REMAINING[index], remaining);
        header.accept(ANTHROPIC_RESET[index], DateTimeFormatter.ISO_INSTANT.format(reset.truncatedTo(ChronoUnit.SECONDS)));
    }

    /** The pool of a configured model (a plan of budgets alone, for an unconfigured model, has none). */
    private static void priority(Admission admission, BiConsumer<String, String> header) {
        if (!admission.plan().pool().isEmpty()) {
            header.accept(PRIORITY, admission.plan().pool());
        }
    }

    /**
     * Budget figures, then limit, remaining and reset of each dimension the verdict shows. The reset is
     * the verdict's for that dimension: an admitted call's end of the window of the limit shown, a
     * refusal's time until it clears (what {@code retry-after} rounds up).
     */
    private static void limits(Admission admission, BiConsumer<String, String> header) {
        Verdict verdict = admission.verdict();
        BudgetTexts.headers(admission.plan(), verdict, header);
        for (Dimension dimension : Dimension.WINDOWED) {
            if (verdict.limit(dimension) >= 0) {
                int index = dimension.index();
                header.accept(LIMIT[index], Long.toString(verdict.limit(dimension)));
                header.accept(REMAINING[index], Long.toString(verdict.remaining(dimension)));
                header.accept(RESET[index], GoDuration.format(verdict.resetMillis(dimension)));
            }
        }
    }
}
