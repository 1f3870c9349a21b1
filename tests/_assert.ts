/**
 * Assertions in std's style (jsr is unreachable here), on node:util's deep equality.
 *
 * @module
 */

import { inspect, isDeepStrictEqual } from "node:util";

/** Thrown by a failed assertion. */
export class AssertionError extends Error {
  /** @param message What failed. */
  constructor(message: string) {
    super(message);
    this.name = "AssertionError";
  }
}

function show(value: unknown): string {
  return inspect(value, { depth: 6, maxStringLength: 2000, maxArrayLength: 50 });
}

/** Assert that a value is truthy. */
export function assert(condition: unknown, message = "Expected a truthy value"): asserts condition {
  if (!condition) throw new AssertionError(message);
}

/** Assert that a value is falsy. */
export function assertFalse(condition: unknown, message = "Expected a falsy value"): void {
  if (condition) throw new AssertionError(`${message}: got ${show(condition)}`);
}

/** Assert deep equality. */
export function assertEquals<T>(actual: T, expected: T, message?: string): void {
  if (!isDeepStrictEqual(actual, expected)) {
    throw new AssertionError(
      `${message ? `${message}: ` : ""}Values are not equal\n  actual:   ${
        show(actual)
      }\n  expected: ${show(expected)}`,
    );
  }
}

/** Assert deep inequality. */
export function assertNotEquals<T>(actual: T, expected: T, message?: string): void {
  if (isDeepStrictEqual(actual, expected)) {
    throw new AssertionError(
      `${message ? `${message}: ` : ""}Expected values to differ: ${show(actual)}`,
    );
  }
}

/** Assert that a string matches a pattern. */
export function assertMatch(actual: string, expected: RegExp, message?: string): void {
  if (!expected.test(actual)) {
    throw new AssertionError(
      `${message ? `${message}: ` : ""}Expected ${show(actual)} to match ${expected}`,
    );
  }
}

/** Assert that a string does not match a pattern. */
export function assertNotMatch(actual: string, expected: RegExp, message?: string): void {
  if (expected.test(actual)) {
    throw new AssertionError(
      `${message ? `${message}: ` : ""}Expected ${show(actual)} not to match ${expected}`,
    );
  }
}

/** Assert that a string contains another. */
export function assertStringIncludes(actual: string, expected: string, message?: string): void {
  if (!actual.includes(expected)) {
    throw new AssertionError(
      `${message ? `${message}: ` : ""}Expected ${show(actual)} to include ${show(expected)}`,
    );
  }
}

/** Assert that a function throws (optionally an error class, with a message part). */
export function assertThrows(
  fn: () => unknown,
  ErrorClass?: new (...args: never[]) => Error,
  includes?: string,
): Error {
  try {
    fn();
  } catch (error) {
    return checked(error, ErrorClass, includes);
  }
  throw new AssertionError("Expected the function to throw");
}

/** The error, when it is of the class and its message holds the part. */
function checked(
  error: unknown,
  ErrorClass?: new (...args: never[]) => Error,
  includes?: string,
): Error {
  if (ErrorClass && !(error instanceof ErrorClass)) {
    throw new AssertionError(`Expected ${ErrorClass.name}, got ${show(error)}`);
  }
  if (includes && !(error as Error).message.includes(includes)) {
    throw new AssertionError(
      `Expected the message to include ${show(includes)}: ${show((error as Error).message)}`,
    );
  }
  return error as Error;
}

/** Assert that a promise rejects (optionally with an error class and message part). */
export async function assertRejects(
  fn: () => Promise<unknown>,
  ErrorClass?: new (...args: never[]) => Error,
  includes?: string,
): Promise<Error> {
  try {
    await fn();
  } catch (error) {
    return checked(error, ErrorClass, includes);
  }
  throw new AssertionError("Expected the promise to reject");
}
