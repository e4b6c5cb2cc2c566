package dev.llmratelimit.spring;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.observe.StatusReport;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the actuator's health endpoint shows of the limiter, whichever Spring Boot's health API carries it:
 * up while no store circuit (the counter store's, the JDBC budget store's) is open.
 *
 * @param details the store's kind, each circuit's state, failed operations since start, the last failure
 */
public record RateLimitHealth(boolean up, Map<String, Object> details) {

    public static RateLimitHealth of(RateLimitRuntime runtime) {
        StatusReport.Store store = runtime.status().read().store();
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("store", store.kind());
        details.put("circuits", store.circuits());
        details.put("failures", store.failures());
        if (store.lastFailure() != null) {
            details.put("lastFailure", store.lastFailure().toString());
            details.put("lastFailedOperation", store.lastFailedOperation());
        }
        return new RateLimitHealth(store.healthy(), details);
    }
}
