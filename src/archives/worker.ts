import { NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import { Mailer } from "../mail/Mailer.ts"
import { MediaStore } from "../media/MediaStore.ts"
import { AppConfig } from "../platform/Config.ts"
import { Database } from "../platform/Database.ts"
import { archiveJobsSweep } from "./Job.ts"

/**
 * A process that only carries out archive jobs, with the API processes'
 * settings and database (already migrated by them): to keep big exports off
 * the processes serving requests, and for the crash test to kill mid-export.
 */
const worker = archiveJobsSweep.pipe(
  Layer.provide(Layer.mergeAll(Mailer.layer, MediaStore.layer)),
  Layer.provideMerge(Database.layer),
  Layer.provideMerge(AppConfig.layer)
)

NodeRuntime.runMain(Layer.launch(worker))
