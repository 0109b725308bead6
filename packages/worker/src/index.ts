export {
  type AskExpiry,
  markedMessage,
  planSubmission,
  RESUME_TEXT,
  SUBMISSION_KIND,
  type Submission,
  type SubmissionPlan,
  submissionOf,
  turnSubmission,
} from './submission.js'
export * from './turn-queue.js'
export * from './worker.js'
