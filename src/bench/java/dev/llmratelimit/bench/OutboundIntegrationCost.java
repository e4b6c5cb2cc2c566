package dev.llmratelimit.bench;

import dev.langchain4j.http.client.jdk.JdkHttpClientBuilder;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import dev.llmratelimit.outbound.FakeProvider;
import dev.llmratelimit.outbound.OutboundLimiter;
import dev.llmratelimit.outbound.http.LimitedHttpClient;
import dev.llmratelimit.outbound.langchain4j.LimitedLangChain4jHttpClientBuilder;
import dev.llmratelimit.outbound.okhttp.OutboundOkHttpInterceptor;
import dev.llmratelimit.outbound.springai.OutboundRestClientInterceptor;
import dev.llmratelimit.outbound.springai.OutboundWebClientFilter;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.ai.openai.api.OpenAiApi;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Part 8, per integration: one call's latency against a local provider through each way the limiter
 * plugs in, with the limiter and without it (the same client, interleaved call by call), one thread, the
 * memory store with room to spare: what the limiter adds to a call, beside the plain java.net.http wrapper.
 */
final class OutboundIntegrationCost {

    record Row(String integration, LatencySamples without, LatencySamples with) {
    }

    private interface Call {
        void run() throws Exception;
    }

    private final BenchSettings settings;

    OutboundIntegrationCost(BenchSettings settings) {
        this.settings = settings;
    }

    List<Row> measure() throws Exception {
        List<Row> rows = new ArrayList<>();
        try (FakeProvider provider = new FakeProvider(1_000_000_000L, 1_000_000_000_000L, 1.0);
             OutboundLimiter limiter = OutboundLimiter.builder()
                     .provider("openai", p -> p.baseUrl(provider.baseUrl()).rpm(1_000_000_000L).tpm(1_000_000_000_000L))
                     .build()) {
            HttpClient plain = HttpClient.newHttpClient();
            HttpClient limited = LimitedHttpClient.wrap(HttpClient.newHttpClient(), limiter);
            HttpRequest chat = HttpRequest.newBuilder(URI.create(provider.baseUrl() + "/chat/completions"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(FakeProvider.CHAT)).build();
            rows.add(measure("java.net.http `HttpClient.send`",
                    () -> plain.send(chat, HttpResponse.BodyHandlers.ofString()),
                    () -> limited.send(chat, HttpResponse.BodyHandlers.ofString())));

            OkHttpClient okHttp = new OkHttpClient();
            OkHttpClient okHttpLimited = new OkHttpClient.Builder().addInterceptor(new OutboundOkHttpInterceptor(limiter)).build();
            rows.add(measure("OkHttp `Call.execute` (the interceptor Spring AI 2.0 is given)",
                    okHttpChat(okHttp, provider), okHttpChat(okHttpLimited, provider)));

            rows.add(measure("LangChain4j `OpenAiChatModel`",
                    langChain4jChat(provider, new JdkHttpClientBuilder()),
                    langChain4jChat(provider, LimitedLangChain4jHttpClientBuilder.of(limiter))));
            rows.add(measure("LangChain4j `OpenAiStreamingChatModel`",
                    langChain4jStream(provider, new JdkHttpClientBuilder()),
                    langChain4jStream(provider, LimitedLangChain4jHttpClientBuilder.of(limiter))));

            rows.add(measure("Spring AI `OpenAiChatModel.call` (RestClient)",
                    springAiCall(springAi(provider, RestClient.builder(), WebClient.builder())),
                    springAiCall(springAi(provider,
                            RestClient.builder().requestInterceptor(new OutboundRestClientInterceptor(limiter)),
                            WebClient.builder()))));
            rows.add(measure("Spring AI `OpenAiChatModel.stream` (WebClient)",
                    springAiStream(springAi(provider, RestClient.builder(), WebClient.builder())),
                    springAiStream(springAi(provider, RestClient.builder(),
                            WebClient.builder().filter(new OutboundWebClientFilter(limiter))))));
        }
        return rows;
    }

    private Row measure(String integration, Call without, Call with) throws Exception {
        LatencySamples plain = new LatencySamples(settings.httpRequests());
        LatencySamples limited = new LatencySamples(settings.httpRequests());
        for (int i = 0; i < settings.httpWarmup() + settings.httpRequests(); i++) {
            boolean measured = i >= settings.httpWarmup();
            long start = System.nanoTime();
            without.run();
            long mid = System.nanoTime();
            with.run();
            long end = System.nanoTime();
            if (measured) {
                plain.add(mid - start);
                limited.add(end - mid);
            }
        }
        return new Row(integration, plain, limited);
    }

    private static Call okHttpChat(OkHttpClient client, FakeProvider provider) {
        Request request = new Request.Builder().url(provider.baseUrl() + "/chat/completions")
                .post(RequestBody.create(FakeProvider.CHAT, MediaType.get("application/json"))).build();
        return () -> {
            try (Response response = client.newCall(request).execute()) {
                response.body().string();
            }
        };
    }

    private static Call langChain4jChat(FakeProvider provider, dev.langchain4j.http.client.HttpClientBuilder http) {
        OpenAiChatModel model = OpenAiChatModel.builder().baseUrl(provider.baseUrl()).apiKey("sk-bench")
                .modelName("gpt-4o").maxTokens(40).maxRetries(0).httpClientBuilder(http).build();
        return () -> model.chat("hi");
    }

    private static Call langChain4jStream(FakeProvider provider, dev.langchain4j.http.client.HttpClientBuilder http) {
        OpenAiStreamingChatModel model = OpenAiStreamingChatModel.builder().baseUrl(provider.baseUrl())
                .apiKey("sk-bench").modelName("gpt-4o").maxTokens(40).httpClientBuilder(http).build();
        return () -> {
            CompletableFuture<ChatResponse> done = new CompletableFuture<>();
            model.chat("hi", new StreamingChatResponseHandler() {
                @Override
                public void onCompleteResponse(ChatResponse response) {
                    done.complete(response);
                }

                @Override
                public void onError(Throwable error) {
                    done.completeExceptionally(error);
                }
            });
            done.get(30, TimeUnit.SECONDS);
        };
    }

    private static org.springframework.ai.openai.OpenAiChatModel springAi(FakeProvider provider, RestClient.Builder rest,
                                                                       WebClient.Builder web) {
        String origin = provider.baseUrl().substring(0, provider.baseUrl().length() - "/v1".length());
        OpenAiApi api = OpenAiApi.builder().baseUrl(origin).apiKey("sk-bench")
                .restClientBuilder(rest.requestFactory(new JdkClientHttpRequestFactory())).webClientBuilder(web).build();
        return org.springframework.ai.openai.OpenAiChatModel.builder().openAiApi(api)
                .defaultOptions(OpenAiChatOptions.builder().model("gpt-4o").maxTokens(40).build()).build();
    }

    private static Call springAiCall(org.springframework.ai.openai.OpenAiChatModel model) {
        return () -> model.call("hi");
    }

    private static Call springAiStream(org.springframework.ai.openai.OpenAiChatModel model) {
        return () -> model.stream(new Prompt("hi")).blockLast(Duration.ofSeconds(30));
    }

    static void write(Report report, List<Row> rows) {
        report.paragraph("Per integration: one call's latency against a local provider (JSON, or a short event "
                + "stream), one thread, through each way the limiter plugs in, with it (memory store, room to spare) "
                + "and without it, the same client interleaved call by call. `added` is the difference of the medians: "
                + "the limiter's tokenizer, buckets and body watch, beside the HTTP call itself.");
        List<List<String>> table = new ArrayList<>();
        for (Row row : rows) {
            double without = row.without().percentileMicros(50);
            double with = row.with().percentileMicros(50);
            table.add(List.of(row.integration(), Report.fixed(without, 0), Report.fixed(with, 0),
                    Report.fixed(with - without, 0), Report.fixed(row.without().percentileMicros(99), 0),
                    Report.fixed(row.with().percentileMicros(99), 0)));
        }
        report.table(List.of("integration", "p50 us without", "p50 us with", "added us (p50)", "p99 us without",
                "p99 us with"), table);
    }
}
