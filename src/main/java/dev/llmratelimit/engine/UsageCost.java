package dev.llmratelimit.engine;

import dev.llmratelimit.usage.Usage;

/** The money of a response's usage, in micro-dollars (rounded up), for groups that limit money. */
@FunctionalInterface
public interface UsageCost {

    UsageCost FREE = usage -> 0;

    long micros(Usage usage);
}
