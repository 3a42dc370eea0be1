// The development capture lives with the providers in notifications/dev-capture.ts (the worker captures
// too); the API's services and routes import it from here.
export {
  type CapturedNotification,
  captureNotification,
  capturesNotifications,
  NOTIFICATION_CHANNELS,
  NOTIFICATION_KINDS,
  type NotificationChannel,
  type NotificationKind,
} from '../../../notifications/dev-capture.ts';
