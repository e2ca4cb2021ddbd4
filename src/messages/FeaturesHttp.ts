import { Layer } from "effect"
import { AttachmentFilesHttp } from "./AttachmentFilesHttp.ts"
import { ReadStatesHttp } from "./ReadStatesHttp.ts"
import { SavedMessagesHttp } from "./SavedMessagesHttp.ts"
import { SearchHttp } from "./SearchHttp.ts"

/** The message routes beside the channel's own (Http.ts): attachment files, read states and mentions, saved messages, search. */
export const MessageFeaturesHttp = Layer.mergeAll(AttachmentFilesHttp, ReadStatesHttp, SavedMessagesHttp, SearchHttp)
