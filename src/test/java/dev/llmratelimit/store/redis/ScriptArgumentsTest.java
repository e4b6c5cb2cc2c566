package dev.llmratelimit.store.redis;

import dev.llmratelimit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RScript;
import org.redisson.client.codec.ByteArrayCodec;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scripts' one argument as Redis's own {@code cmsgpack.unpack} reads it: every encoding
 * {@link ScriptArguments} writes, at the edges of each (integers, strings and arrays), comes back
 * as the same value.
 */
class ScriptArgumentsTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    /** Each decoded element as its Lua type and value: numbers in 17 significant digits, strings as they are. */
    private static final String ECHO = """
            local decoded = cmsgpack.unpack(ARGV[1])
            local out = {}
            for i = 1, #decoded do
                local v = decoded[i]
                if type(v) == 'number' then
                    out[i] = 'number:' .. string.format('%.17g', v)
                else
                    out[i] = type(v) .. ':' .. v
                end
            end
            return out
            """;

    /** The number of elements decoded and the last one. */
    private static final String COUNT = """
            local decoded = cmsgpack.unpack(ARGV[1])
            return {#decoded, decoded[#decoded] or -1}
            """;

    @Test
    void everyIntegerEncodingDecodesToTheSameNumber() {
        long[] values = {-33, -32, -1, 0, 1, 127, 128, 255, 65_536, Integer.MIN_VALUE, Integer.MAX_VALUE,
                Integer.MAX_VALUE + 1L, Integer.MIN_VALUE - 1L, 1L << 50, -(1L << 50), 1L << 53};
        ScriptArguments args = new ScriptArguments();
        List<String> expected = new ArrayList<>();
        for (long value : values) {
            args.add(value);
            expected.add("number:" + value);
        }
        args.add(true).add(false);
        expected.addAll(List.of("number:1", "number:0"));

        assertThat(echo(args)).containsExactlyElementsOf(expected);
    }

    @Test
    void doublesDecodeToTheSameDouble() {
        double[] values = {0.0, 0.5, 0.29, 1e-9, 1.5, 1234567.891};
        ScriptArguments args = new ScriptArguments();
        for (double value : values) {
            args.add(value);
        }

        List<String> decoded = echo(args);
        assertThat(decoded).hasSize(values.length);
        for (int i = 0; i < values.length; i++) {
            assertThat(decoded.get(i)).startsWith("number:");
            assertThat(Double.parseDouble(decoded.get(i).substring("number:".length()))).isEqualTo(values[i]);
        }
    }

    @Test
    void stringsOfEveryHeaderSizeAndAnyCharactersDecodeToTheSameBytes() {
        List<String> values = List.of("", "x".repeat(31), "x".repeat(32), "x".repeat(255), "x".repeat(256),
                "x".repeat(65_535), "x".repeat(65_536), "é".repeat(16), "pool \"quoted\" \\ {tag}\n", "a\0b",
                "日本語のプール", "127");
        ScriptArguments args = new ScriptArguments();
        values.forEach(args::add);

        List<String> expected = values.stream().map(value -> "string:" + value).toList();
        assertThat(echo(args)).containsExactlyElementsOf(expected);
    }

    @Test
    void arraysOfEveryHeaderSizeDecodeWhole() {
        for (int count : new int[] {1, 15, 16, 65_535, 65_536}) {
            ScriptArguments args = new ScriptArguments();
            for (int i = 1; i <= count; i++) {
                args.add(i);
            }
            assertThat(run(COUNT, args)).as("%d elements", count).containsExactly((long) count, (long) count);
        }
    }

    @Test
    void aFragmentIsAddedWithAllItsElementsInPlace() {
        ScriptArguments part = new ScriptArguments();
        for (int i = 0; i < 20; i++) {
            part.add(1000 + i);
        }
        ScriptArguments.Fragment fragment = part.fragment();
        ScriptArguments args = new ScriptArguments().add("head").add(fragment).add(fragment).add(-5);

        List<String> decoded = echo(args);
        assertThat(decoded).hasSize(42);
        assertThat(decoded.get(0)).isEqualTo("string:head");
        assertThat(decoded.get(1)).isEqualTo("number:1000");
        assertThat(decoded.get(20)).isEqualTo("number:1019");
        assertThat(decoded.get(21)).isEqualTo("number:1000");
        assertThat(decoded.get(41)).isEqualTo("number:-5");
    }

    private static List<String> echo(ScriptArguments args) {
        List<String> decoded = new ArrayList<>();
        for (Object element : run(ECHO, args)) {
            decoded.add(new String((byte[]) element, StandardCharsets.UTF_8));
        }
        return decoded;
    }

    private static List<Object> run(String script, ScriptArguments args) {
        return REDIS.client().getScript(ByteArrayCodec.INSTANCE)
                .eval(RScript.Mode.READ_ONLY, script, RScript.ReturnType.MULTI, List.of(), (Object) args.toBytes());
    }
}
