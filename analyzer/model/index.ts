// The reference model's public surface: the ReplayModel factory, profiles,
// and the pure kernels the rules and tests use on their own.

export * from "./api.js";
export { createModel, restoreModel, ROOM_RETIRE_US, COLLECTIVE_HANG_US, type ModelOptions } from "./pdModel.js";
export {
  defaultProfile,
  profileFor,
  settingsFromConfig,
  parseVersion,
  versionAtLeast,
  abortHandlingFor,
  decodeSendsAbortFor,
  queueRoutingFor,
  transferQueuesFor,
  prefillBootstrapTimeoutFor,
  indexKRaggedAccessorsWaitFor,
  drainsBeforeTimeoutFor,
  type ProfileSettings,
} from "./profile.js";
export { updateStatus, updateStatusBase, updateStatusNixl, minReduce, isTerminal } from "./kvpoll.js";
export { notifOf, formatNotif, type Notif, type NotifFields, type NotifKind } from "./notif.js";
export { TransferStatus } from "./transferStatus.js";
export { routeQueue, ChunkCounter, PrefillSender, type ChunkSend } from "./sender.js";
export { DecodeReceiver, metadataGate } from "./receiver.js";
export { BootstrapThread, frameFromName, GUARD_ASSERTION, type BootFrame, type FrameOutcome } from "./bootstrap.js";
export { LayerDoneCounter, LayerLoad, PRODUCER_SLOTS, accessorWaits, RAGGED_INDEX_K, type Accessor } from "./hicache.js";
export { fp8Encode, fp8Decode, quantizeRow, dequantizeRow, FP8_MAX, FP8_NAN } from "./fp8.js";
export { pageChecksum, normalizeHash, isChecksumAlgo, type ChecksumAlgo } from "./checksum.js";
export { IndexKPool, storeAddress, rowBytes, pageBytes, poolPages, INDEX_K_PAGE_TOKENS, type StoreAddress } from "./indexK.js";
export {
  checkPoolSizing,
  logitsAddressCheck,
  groupConcurrentContiguous,
  genericSendBlocks,
  misaddressedBlocks,
  INT32_MAX,
  DEFAULT_LOGIT_ROWS,
  type SizingMismatch,
} from "./sizing.js";
export { ShadowMemory, BUFFERS, bufferId } from "./shadowMemory.js";
export { CollectiveTracker, type Divergence } from "./collectives.js";
export { rankLabel } from "./ranks.js";
