/** The discovery categories (`category_type` 0..8 of the spec). */
export const CATEGORIES: ReadonlyArray<{ readonly id: number; readonly name: string }> = [
  { id: 0, name: "General" },
  { id: 1, name: "Gaming" },
  { id: 2, name: "Music" },
  { id: 3, name: "Entertainment" },
  { id: 4, name: "Creative Arts" },
  { id: 5, name: "Science & Tech" },
  { id: 6, name: "Education" },
  { id: 7, name: "Sports" },
  { id: 8, name: "Fashion & Beauty" }
]
