/** One dispatch: its event name and data as JSON. One object per event, shared by every session it goes to. */
export interface Dispatch {
  readonly type: string
  readonly data: string
}
