package dev.llmratelimit.outbound.springai;

import dev.llmratelimit.outbound.OutboundLimiter;
import dev.llmratelimit.outbound.OutboundLimiters;
import dev.llmratelimit.spring.SpringProperties;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when some property names an outbound provider ({@code llm.ratelimit.outbound.<provider>.<setting>}),
 * or the application defines its own {@link OutboundLimiter} bean.
 */
final class OutboundLimiterCondition extends SpringBootCondition implements ConfigurationCondition {

    /** After the application's own configuration has registered its beans. */
    @Override
    public ConfigurationPhase getConfigurationPhase() {
        return ConfigurationPhase.REGISTER_BEAN;
    }

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        if (!SpringProperties.withPrefix(context.getEnvironment(), OutboundLimiters.PREFIX).isEmpty()) {
            return ConditionOutcome.match("llm.ratelimit.outbound.* properties found");
        }
        ConfigurableListableBeanFactory beans = context.getBeanFactory();
        if (beans != null && beans.getBeanNamesForType(OutboundLimiter.class, true, false).length > 0) {
            return ConditionOutcome.match("an OutboundLimiter bean found");
        }
        return ConditionOutcome.noMatch("no llm.ratelimit.outbound.* property and no OutboundLimiter bean");
    }
}
