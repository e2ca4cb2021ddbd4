/** The guild actor commits its batches with the statements every actor's batches use. */
export { rowsInOneStatement, writeDecisions, writeRows } from "../actors/BatchStatements.ts"
