/** The guild actor's batches lay out their rows as every actor's do. */
export { rowsTable } from "../actors/RowColumns.ts"
