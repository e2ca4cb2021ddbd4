import { useEffect, useRef } from "preact/hooks"
import type { Action } from "../panel.ts"

/** The confirmation step of every action: nothing runs until the operator says so here. */
export const Confirm = (props: { readonly action: Action; readonly onCancel: () => void; readonly onConfirm: () => void }) => {
  const cancel = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    cancel.current?.focus()
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") props.onCancel()
    }
    window.addEventListener("keydown", onKey)
    return () => window.removeEventListener("keydown", onKey)
  }, [])
  return (
    <div class="overlay">
      <div class="dialog" role="alertdialog" aria-modal="true" aria-labelledby="confirm-title" aria-describedby="confirm-detail">
        <h2 id="confirm-title">{props.action.title}</h2>
        <p id="confirm-detail">{props.action.detail}</p>
        <div class="dialog-buttons">
          <button type="button" class="button" ref={cancel} onClick={props.onCancel}>Cancel</button>
          <button type="button" class={props.action.danger ? "button danger" : "button primary"} data-confirm onClick={props.onConfirm}>
            {props.action.confirm}
          </button>
        </div>
      </div>
    </div>
  )
}
