/**
 * The variable naming the file where the test processes write down each reference
 * operation whose answer they checked (ResponseShapes.ts), for the full run's report
 * (ResponseShapesReporter.ts).
 */
export const CHECKED_LOG_VARIABLE = "RESPONSE_SHAPES_CHECKED_LOG"
