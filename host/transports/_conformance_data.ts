/**
 * What the MCP conformance suite's fixtures say: media, elicitation forms,
 * resources, prompts and completion candidates. The behaviour that serves
 * them is in `conformance_fixtures.ts`.
 *
 * @module
 */

import {
  type ElicitRequestFormParams,
  type GetPromptResult,
  type Prompt,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType,
  type Tool,
} from "@modelcontextprotocol/server";

/** A 1×1 red PNG, base64. */
export const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
/** A WAV of 8 silent 8-bit samples at 8 kHz, base64. */
export const WAV = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";
/** The one resource template. */
export const TEMPLATE = "test://template/{id}/data";

/** A form an elicitation asks the user to fill. */
export type Form = ElicitRequestFormParams["requestedSchema"];

/** `test_elicitation`'s form. */
export const USER_FORM: Form = {
  type: "object",
  properties: {
    username: { type: "string", description: "User's response" },
    email: { type: "string", description: "User's email address" },
  },
  required: ["username", "email"],
};

/** A default for every primitive type (SEP-1034). */
export const DEFAULTS_FORM: Form = {
  type: "object",
  properties: {
    name: { type: "string", description: "Name", default: "John Doe" },
    age: { type: "integer", description: "Age", default: 30 },
    score: { type: "number", description: "Score", default: 95.5 },
    status: {
      type: "string",
      description: "Status",
      enum: ["active", "inactive", "pending"],
      default: "active",
    },
    verified: { type: "boolean", description: "Verified", default: true },
  },
};

function titled(prefix: string, noun: string): Array<{ const: string; title: string }> {
  return ["First", "Second", "Third"].map((ordinal, i) => ({
    const: `${prefix}${i + 1}`,
    title: `${ordinal} ${noun}`,
  }));
}

/** Each kind of enum (SEP-1330): untitled, titled, legacy titled; single and multiple. */
export const ENUMS_FORM: Form = {
  type: "object",
  properties: {
    untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
    titledSingle: { type: "string", oneOf: titled("value", "Option") },
    legacyEnum: {
      type: "string",
      enum: ["opt1", "opt2", "opt3"],
      enumNames: ["Option One", "Option Two", "Option Three"],
    },
    untitledMulti: {
      type: "array",
      items: { type: "string", enum: ["option1", "option2", "option3"] },
    },
    titledMulti: { type: "array", items: { anyOf: titled("value", "Choice") } },
  },
};

/** An input schema with `$schema`, `$defs` and `additionalProperties` (SEP-1613). */
export const JSON_SCHEMA_2020_12: Tool["inputSchema"] = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
  additionalProperties: false,
};

/** A listed resource and what reading it gives. */
export type FixtureResource = Resource & { contents: ReadResourceResult["contents"][number] };

function textResource(name: string, description: string, text: string): FixtureResource {
  const uri = `test://${name}`;
  return {
    uri,
    name,
    description,
    mimeType: "text/plain",
    contents: { uri, mimeType: "text/plain", text },
  };
}

/** The direct resources. */
export const RESOURCES: readonly FixtureResource[] = [
  textResource(
    "static-text",
    "A static text resource",
    "This is the content of the static text resource.",
  ),
  {
    uri: "test://static-binary",
    name: "static-binary",
    description: "A static binary resource (a PNG image)",
    mimeType: "image/png",
    contents: { uri: "test://static-binary", mimeType: "image/png", blob: PNG },
  },
  textResource(
    "watched-resource",
    "A resource clients may subscribe to",
    "Watched resource content",
  ),
];

/** The resource templates. */
export const TEMPLATES: ResourceTemplateType[] = [{
  uriTemplate: TEMPLATE,
  name: "template-data",
  description: "JSON data for an id",
  mimeType: "application/json",
}];

/** The prompts. */
export const PROMPTS: Prompt[] = [
  { name: "test_simple_prompt", description: "A prompt without arguments" },
  {
    name: "test_prompt_with_arguments",
    description: "A prompt that quotes its two arguments",
    arguments: [
      { name: "arg1", description: "First test argument", required: true },
      { name: "arg2", description: "Second test argument", required: true },
    ],
  },
  {
    name: "test_prompt_with_embedded_resource",
    description: "A prompt that embeds a resource",
    arguments: [{
      name: "resourceUri",
      description: "URI of the resource to embed",
      required: true,
    }],
  },
  { name: "test_prompt_with_image", description: "A prompt with an image" },
];

/** Completion candidates, by prompt name or template, then argument. */
export const COMPLETIONS: ReadonlyMap<string, ReadonlyMap<string, readonly string[]>> = new Map([
  [
    "test_prompt_with_arguments",
    new Map([["arg1", ["paris", "park", "party"]], ["arg2", ["red", "green", "blue"]]]),
  ],
  [TEMPLATE, new Map([["id", ["1", "2", "3", "123"]]])],
]);

type Messages = GetPromptResult["messages"];

function say(text: string): Messages[number] {
  return { role: "user", content: { type: "text", text } };
}

/**
 * A prompt's messages.
 *
 * @param name The prompt.
 * @param args Its arguments.
 * @returns The messages.
 * @throws {ProtocolError} Invalid params, for an unknown prompt or a missing argument.
 */
export function promptMessages(name: string, args: Record<string, string>): Messages {
  const need = (arg: string): string => {
    const value = args[arg];
    if (value === undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Prompt "${name}" needs argument "${arg}"`,
      );
    }
    return value;
  };
  switch (name) {
    case "test_simple_prompt":
      return [say("This is a simple prompt for testing.")];
    case "test_prompt_with_arguments":
      return [say(`Prompt with arguments: arg1='${need("arg1")}', arg2='${need("arg2")}'`)];
    case "test_prompt_with_embedded_resource": {
      const resource = {
        uri: need("resourceUri"),
        mimeType: "text/plain",
        text: "Embedded resource content for testing.",
      };
      return [
        { role: "user", content: { type: "resource", resource } },
        say("Please process the embedded resource above."),
      ];
    }
    case "test_prompt_with_image":
      return [
        { role: "user", content: { type: "image", data: PNG, mimeType: "image/png" } },
        say("Please analyze the image above."),
      ];
  }
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt "${name}"`);
}
