/**
 * Where OpenTelemetry export goes, as `telemetry_settings.ts` resolves it
 * from the config file's section and the standard `OTEL_*` variables, and
 * the network the launch grants for it.
 *
 * @module
 */

import { assertEquals, assertThrows } from "../../_assert.ts";
import { telemetryNet, telemetrySettings } from "../../../host/config/mod.ts";

const env = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("telemetry: off unless an endpoint is named", () => {
  assertEquals(telemetrySettings(undefined, env({})), null);
  assertEquals(telemetrySettings({}, env({ OTEL_SERVICE_NAME: "x" })), null);
  assertEquals(telemetryNet(null), []);
});

Deno.test("telemetry: the section's endpoint, each signal under it, over the environment's", () => {
  const settings = telemetrySettings(
    { otlp: { endpoint: "http://127.0.0.1:4318" } },
    env({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://other:4318" }),
  );
  assertEquals(settings, {
    traces: "http://127.0.0.1:4318/v1/traces",
    metrics: "http://127.0.0.1:4318/v1/metrics",
    from: "config",
    spanDelayMs: 5_000,
    metricIntervalMs: 60_000,
  });
  assertEquals(telemetryNet(settings), ["127.0.0.1:4318"]);
  const under = telemetrySettings(
    { otlp: { endpoint: "https://otel.example/collector/" } },
    env({}),
  );
  assertEquals(under?.traces, "https://otel.example/collector/v1/traces");
  assertEquals(telemetryNet(under), ["otel.example:443"]);
});

Deno.test("telemetry: the standard variables, a signal's own endpoint as given", () => {
  const settings = telemetrySettings(
    undefined,
    env({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://traces.example:9999/in",
      OTEL_BSP_SCHEDULE_DELAY: "250",
      OTEL_METRIC_EXPORT_INTERVAL: "not a number",
    }),
  );
  assertEquals(settings, {
    traces: "http://traces.example:9999/in",
    metrics: "http://collector:4318/v1/metrics",
    from: "environment",
    spanDelayMs: 250,
    metricIntervalMs: 60_000,
  });
  assertEquals(telemetryNet(settings), ["traces.example:9999", "collector:4318"]);
  const alone = telemetrySettings(
    undefined,
    env({
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "http://m:4318/v1/metrics",
    }),
  );
  assertEquals([alone?.traces, alone?.metrics], [
    "http://m:4318/v1/traces",
    "http://m:4318/v1/metrics",
  ]);
});

Deno.test("telemetry: OTEL_SDK_DISABLED turns it off; a bad endpoint is an error naming it", () => {
  const section = { otlp: { endpoint: "http://127.0.0.1:4318" } };
  assertEquals(telemetrySettings(section, env({ OTEL_SDK_DISABLED: "true" })), null);
  assertThrows(
    () => telemetrySettings({ otlp: { endpoint: "file:///etc/passwd" } }, env({})),
    TypeError,
    "telemetry.otlp.endpoint must be an http or https URL",
  );
  assertThrows(
    () => telemetrySettings(undefined, env({ OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" })),
    TypeError,
    "OTEL_EXPORTER_OTLP_ENDPOINT is not a URL",
  );
});
