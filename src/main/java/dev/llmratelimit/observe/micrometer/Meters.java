package dev.llmratelimit.observe.micrometer;

import dev.llmratelimit.observe.Instrument;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleSupplier;

/**
 * Registers the library's {@link Instrument instruments} in one registry under their names and
 * descriptions. Only seconds become a Micrometer base unit: the other units are counts or ratios,
 * and leaving them out keeps the Prometheus names those of the OpenTelemetry exporter
 * ({@code llm_ratelimit_decisions_total}, not {@code ..._decisions_decisions_total}).
 * The gauges and function counters it made are removed by {@link #removeGauges()}: they read one
 * policy's limiter, and the next policy registers its own under the same names.
 */
final class Meters {

    private final MeterRegistry registry;
    private final List<Meter> gauges = new ArrayList<>();
    /** What the function counters read: the registry holds it only weakly. */
    private final List<DoubleSupplier> counted = new ArrayList<>();

    Meters(MeterRegistry registry) {
        this.registry = registry;
    }

    MeterRegistry registry() {
        return registry;
    }

    Counter counter(Instrument instrument, Tags tags) {
        return Counter.builder(instrument.id()).description(instrument.description()).tags(tags).register(registry);
    }

    void gauge(Instrument instrument, Tags tags, DoubleSupplier value) {
        gauges.add(Gauge.builder(instrument.id(), value, DoubleSupplier::getAsDouble).description(instrument.description())
                .baseUnit(instrument.inSeconds() ? "seconds" : null).tags(tags).strongReference(true).register(registry));
    }

    /** A counter whose total is kept elsewhere and read when the registry is collected. */
    void functionCounter(Instrument instrument, Tags tags, DoubleSupplier total) {
        counted.add(total);
        gauges.add(FunctionCounter.builder(instrument.id(), total, DoubleSupplier::getAsDouble)
                .description(instrument.description()).tags(tags).register(registry));
    }

    void removeGauges() {
        for (Meter gauge : gauges) {
            registry.remove(gauge);
        }
        gauges.clear();
        counted.clear();
    }
}
