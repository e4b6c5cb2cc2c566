package dev.llmratelimit.identity;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ClaimValuesTest {

    @Test
    void aStringIsTrimmedButNeverUnquoted() {
        assertThat(ClaimValues.text("prod")).isEqualTo("prod");
        assertThat(ClaimValues.text("  prod ")).isEqualTo("prod");
        assertThat(ClaimValues.text("\"prod\"")).isEqualTo("\"prod\"");
        assertThat(ClaimValues.text("null")).isEqualTo("null");
    }

    @Test
    void blankOrMissingIsNoName() {
        assertThat(ClaimValues.text(null)).isNull();
        assertThat(ClaimValues.text("")).isNull();
        assertThat(ClaimValues.text("   ")).isNull();
        assertThat(ClaimValues.text(new JsonText("\"  \""))).isNull();
    }

    @Test
    void aJsonStringIsUnquoted() {
        assertThat(ClaimValues.text(new JsonText("\"prod\""))).isEqualTo("prod");
        assertThat(ClaimValues.text(new JsonText(" \"team-a\" "))).isEqualTo("team-a");
        assertThat(ClaimValues.text(new JsonText("\"\""))).isNull();
    }

    @Test
    void escapesInAJsonStringAreDecoded() {
        assertThat(ClaimValues.text(new JsonText("\"a\\\"b\\\\c\\/d\""))).isEqualTo("a\"b\\c/d");
        assertThat(ClaimValues.text(new JsonText("\"gr\\u00fcn\\t1\""))).isEqualTo("grün\t1");
    }

    @Test
    void malformedJsonTextIsNoName() {
        assertThat(ClaimValues.text(new JsonText("\"a\"b\""))).isNull();
        assertThat(ClaimValues.text(new JsonText("\"a\\\""))).isNull();
        assertThat(ClaimValues.text(new JsonText("\"a\\x\""))).isNull();
        assertThat(ClaimValues.text(new JsonText("\"\\u00f\""))).isNull();
        assertThat(ClaimValues.text(new JsonText("\"\\u00fg\""))).isNull();
    }

    @Test
    void jsonNullIsNoNameAndNumbersOrBooleansReadAsWritten() {
        assertThat(ClaimValues.text(new JsonText("null"))).isNull();
        assertThat(ClaimValues.text(new JsonText("3"))).isEqualTo("3");
        assertThat(ClaimValues.text(7L)).isEqualTo("7");
        assertThat(ClaimValues.text(true)).isEqualTo("true");
    }

    @Test
    void objectsAndArraysAreNoName() {
        assertThat(ClaimValues.text(Map.of("priority", "prod"))).isNull();
        assertThat(ClaimValues.text(List.of("prod"))).isNull();
    }

    @Test
    void aMemberIsReadFromAnObjectOnly() {
        assertThat(ClaimValues.textIn(Map.of("priority", new JsonText("\"prod\"")), "priority")).isEqualTo("prod");
        assertThat(ClaimValues.textIn(Map.of("priority", "dev"), "priority")).isEqualTo("dev");
        assertThat(ClaimValues.textIn(Map.of("tier", "dev"), "priority")).isNull();
        assertThat(ClaimValues.textIn("{\"priority\":\"prod\"}", "priority")).isNull();
        assertThat(ClaimValues.textIn(null, "priority")).isNull();
    }
}
