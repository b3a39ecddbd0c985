// Copyright 2026 the understudy authors. MIT license.
// This module is browser compatible.

/**
 * Safe descriptions of values, for the floors that imported them from here;
 * they live in the package's one validation module, `../validation.ts`.
 *
 * @module
 */

export { describeError, describeValue } from "../validation.ts";
