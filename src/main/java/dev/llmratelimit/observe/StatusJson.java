package dev.llmratelimit.observe;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Instant;
import java.util.Map;

/** The status page's JSON twin (docs/observability.md lists its fields). */
public final class StatusJson {

    private static final JsonFactory JSON = new JsonFactory();

    private StatusJson() {
    }

    public static void write(StatusReport report, OutputStream out) throws IOException {
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            instant(json, "generated_at", report.generatedAt());
            json.writeStringField("enforcement", report.enforcement());
            json.writeObjectFieldStart("window");
            json.writeNumberField("length_ms", report.windowMillis());
            json.writeStringField("mode", report.windowMode());
            json.writeEndObject();
            configuration(json, report.configuration());
            store(json, report.store());
            json.writeArrayFieldStart("models");
            for (StatusReport.Model model : report.models()) {
                model(json, model);
            }
            json.writeEndArray();
            json.writeArrayFieldStart("budgets");
            for (BudgetStatus budget : report.budgets()) {
                budget(json, budget, report.generatedAt());
            }
            json.writeEndArray();
            json.writeEndObject();
        }
    }

    private static void configuration(JsonGenerator json, ConfigurationStatus configuration) throws IOException {
        json.writeObjectFieldStart("configuration");
        json.writeStringField("origin", configuration.origin());
        json.writeStringField("fingerprint", configuration.fingerprint());
        instant(json, "loaded_at", configuration.loadedAt());
        ConfigurationStatus.Reload reload = configuration.lastReload();
        if (reload == null) {
            json.writeNullField("last_reload");
        } else {
            json.writeObjectFieldStart("last_reload");
            instant(json, "at", reload.at());
            json.writeBooleanField("applied", reload.applied());
            json.writeStringField("message", reload.message());
            json.writeEndObject();
        }
        json.writeEndObject();
    }

    private static void store(JsonGenerator json, StatusReport.Store store) throws IOException {
        json.writeObjectFieldStart("store");
        json.writeStringField("kind", store.kind());
        json.writeBooleanField("healthy", store.healthy());
        json.writeObjectFieldStart("circuits");
        for (Map.Entry<String, String> circuit : store.circuits().entrySet()) {
            json.writeStringField(circuit.getKey(), circuit.getValue());
        }
        json.writeEndObject();
        json.writeObjectFieldStart("failures");
        for (Map.Entry<String, Long> failures : store.failures().entrySet()) {
            json.writeNumberField(failures.getKey(), failures.getValue());
        }
        json.writeEndObject();
        instant(json, "last_failure", store.lastFailure());
        json.writeStringField("last_failed_operation", store.lastFailedOperation());
        if (store.localDecisions() == null) {
            json.writeNullField("local_decisions");
        } else {
            json.writeNumberField("local_decisions", store.localDecisions());
        }
        json.writeEndObject();
    }

    private static void model(JsonGenerator json, StatusReport.Model model) throws IOException {
        json.writeStartObject();
        json.writeStringField("name", model.name());
        json.writeNumberField("rpm", model.rpm());
        json.writeNumberField("tpm", model.tpm());
        json.writeNumberField("saturation_threshold", model.threshold());
        json.writeBooleanField("pools_enforced", model.poolsEnforced());
        json.writeStringField("fairness", model.fairness());
        json.writeBooleanField("available", model.available());
        json.writeNumberField("saturation", model.saturation());
        json.writeStringField("mode", model.mode());
        json.writeNumberField("window_left_ms", model.windowLeftMillis());
        json.writeNumberField("requests", model.requests());
        json.writeNumberField("tokens", model.tokens());
        json.writeObjectFieldStart("refused_recently");
        for (Map.Entry<String, Long> refused : model.refusedRecently().entrySet()) {
            json.writeNumberField(refused.getKey(), refused.getValue());
        }
        json.writeEndObject();
        json.writeArrayFieldStart("history");
        for (RecentActivity.Point point : model.history()) {
            json.writeStartObject();
            json.writeStringField("start", Instant.ofEpochMilli(point.startMillis()).toString());
            json.writeNumberField("admitted", point.admitted());
            json.writeNumberField("refused", point.refused());
            json.writeNumberField("saturation", point.saturation());
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeArrayFieldStart("pools");
        for (StatusReport.Pool pool : model.pools()) {
            json.writeStartObject();
            json.writeStringField("name", pool.name());
            json.writeNumberField("share", pool.share());
            json.writeNumberField("requests", pool.requests());
            json.writeNumberField("request_limit", pool.requestLimit());
            json.writeNumberField("tokens", pool.tokens());
            json.writeNumberField("token_limit", pool.tokenLimit());
            if (pool.shareNow() >= 0) {
                json.writeBooleanField("active", pool.active());
                json.writeNumberField("share_now", pool.shareNow());
            }
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeArrayFieldStart("limits");
        for (StatusReport.Limit limit : model.limits()) {
            limit(json, limit);
        }
        json.writeEndArray();
        json.writeEndObject();
    }

    private static void limit(JsonGenerator json, StatusReport.Limit limit) throws IOException {
        json.writeStartObject();
        json.writeStringField("dimension", limit.dimension());
        json.writeNumberField("window_ms", limit.windowMillis());
        json.writeNumberField("limit", limit.limit());
        json.writeNumberField("used", limit.used());
        json.writeNumberField("window_left_ms", limit.windowLeftMillis());
        json.writeArrayFieldStart("pools");
        for (StatusReport.PoolLimit pool : limit.pools()) {
            json.writeStartObject();
            json.writeStringField("name", pool.name());
            json.writeNumberField("used", pool.used());
            json.writeNumberField("limit", pool.limit());
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeEndObject();
    }

    private static void budget(JsonGenerator json, BudgetStatus budget, Instant now) throws IOException {
        json.writeStartObject();
        json.writeStringField("scope", budget.scope());
        json.writeStringField("name", budget.name());
        json.writeStringField("model", budget.model());
        json.writeNumberField("limit_micros", budget.limitMicros());
        json.writeNumberField("soft_micros", budget.softMicros());
        json.writeNumberField("spent_micros", budget.spentMicros());
        json.writeNumberField("reserved_micros", budget.reservedMicros());
        json.writeNumberField("left_micros", budget.leftMicros());
        instant(json, "period_start", budget.periodStart());
        instant(json, "period_end", budget.periodEnd());
        json.writeNumberField("resets_in_ms", Math.max(0, budget.periodEnd().toEpochMilli() - now.toEpochMilli()));
        json.writeEndObject();
    }

    private static void instant(JsonGenerator json, String field, Instant instant) throws IOException {
        if (instant == null) {
            json.writeNullField(field);
        } else {
            json.writeStringField(field, instant.toString());
        }
    }
}
