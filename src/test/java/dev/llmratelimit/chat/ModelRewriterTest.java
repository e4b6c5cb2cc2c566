package dev.llmratelimit.chat;

import org.junit.jupiter.api.Test;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class ModelRewriterTest {

    private static String rewrite(String body, String model) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return new String(ModelRewriter.withModel(bytes, bytes.length, model).orElseThrow(), StandardCharsets.UTF_8);
    }

    @Test
    void onlyTheModelValueChanges() {
        assertThat(rewrite("{ \"messages\" : [ {\"model\":\"inner\"} ],\n  \"model\" :\"gpt-4o\" , \"n\":1}", "gpt-4o-mini"))
                .isEqualTo("{ \"messages\" : [ {\"model\":\"inner\"} ],\n  \"model\" :\"gpt-4o-mini\" , \"n\":1}");
    }

    @Test
    void escapedNamesAreWrittenAsJson() {
        assertThat(rewrite("{\"model\":\"a\\u0062c\"}", "x\"y\u00e9\ud83c\udf0d"))
                .isEqualTo("{\"model\":\"x\\\"y\\u00e9\\ud83c\\udf0d\"}");
    }

    @Test
    void utf16BodiesStayUtf16WithTheirByteOrderMark() {
        Charset utf16 = StandardCharsets.UTF_16BE;
        byte[] body = ("\uFEFF{\"model\":\"big\",\"x\":1}").getBytes(utf16);
        byte[] rewritten = ModelRewriter.withModel(body, body.length, "small").orElseThrow();
        assertThat(new String(rewritten, utf16)).isEqualTo("\uFEFF{\"model\":\"small\",\"x\":1}");
    }

    @Test
    void aBodyWithoutAStringModelIsNotRewritten() {
        byte[] body = "{\"model\":7}".getBytes(StandardCharsets.UTF_8);
        assertThat(ModelRewriter.withModel(body, body.length, "m")).isEmpty();
    }
}
