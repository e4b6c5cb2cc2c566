package dev.llmratelimit.outbound.springai;

import dev.llmratelimit.outbound.OutboundLimiters;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Matches when some property names an outbound provider ({@code llm.ratelimit.outbound.<provider>.<setting>}). */
final class OutboundPropertiesCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        boolean configured = !SpringProperties.withPrefix(context.getEnvironment(), OutboundLimiters.PREFIX).isEmpty();
        return configured ? ConditionOutcome.match("llm.ratelimit.outbound.* properties found")
                : ConditionOutcome.noMatch("no llm.ratelimit.outbound.* property");
    }
}
