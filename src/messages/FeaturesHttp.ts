import { Layer } from "effect"
import { AttachmentFilesHttp } from "./attachments/Http.ts"
import { ReadStatesHttp } from "./readStates/Http.ts"
import { SavedMessagesHttp } from "./saved/Http.ts"
import { SearchHttp } from "./search/Http.ts"

/** The message routes beside the channel's own (Http.ts): attachment files, read states and mentions, saved messages, search. */
export const MessageFeaturesHttp = Layer.mergeAll(AttachmentFilesHttp, ReadStatesHttp, SavedMessagesHttp, SearchHttp)
