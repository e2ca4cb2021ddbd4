import { useState } from "preact/hooks"
import { Console } from "./Console.tsx"
import { endSession, type Operator, SignIn } from "./SignIn.tsx"

/** Signed out or in: the operator (and so the credential) exists only in this component's state. */
export const App = () => {
  const [operator, setOperator] = useState<Operator | undefined>(undefined)
  if (operator === undefined) return <SignIn onSignedIn={setOperator} />
  const signOut = () => {
    if (operator.sessionToken !== undefined) void endSession(operator.sessionToken)
    setOperator(undefined)
  }
  return <Console operator={operator} onSignOut={signOut} />
}
