import { render } from "preact"
import { App } from "./App.tsx"
import "./console.css"

const root = document.getElementById("console")
if (root !== null) render(<App />, root)
