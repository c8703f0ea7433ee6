/** The driver detail page's one read (`GET /api/driver/{id}/detail.json`, api/routes/driver_detail.py). */
import { http } from '../../api/client';

export interface DriverRecord {
  id: number;
  name: string;
  phone: string | null;
  nationalId: string | null;
  licenceNo: string | null;
  licenceClass: string | null;
  qualificationNo: string | null;
  photoId: number | null;
  state: number;
  createTime: string;
  enterpriseId: number;
  enterpriseName: string;
}

export interface DriverCard {
  time: string;
  qualificationNo: string | null;
  issuingAuthority: string | null;
  validUntil: string | null;
  validDaysLeft: number | null;
}

export interface DrivenVehicle {
  carId: number;
  plateNumber: string;
  time: string | null;
  /** 1: an IC card sign-in; 2: the car the driver is bound to. */
  source: 1 | 2;
}

export interface DriverAlarm {
  id: number;
  type: number;
  level: number | null;
  startTime: string;
  endTime: string | null;
  carId: number | null;
  plateNumber: string | null;
  address: string | null;
  state: number;
}

/** A report day's driving-behaviour score (drivingGradeRule; the deductions as in features/report/GradeCell). */
export interface DriverGrade {
  /** yyyymmdd */
  date: number;
  gradeScore: number;
  grade: string;
  gradeDeductions: { key: string; count: number; minutes: number; points: number }[];
  mileageKm: number;
  driveS: number;
}

export interface DriverDetail {
  driver: DriverRecord;
  /** `daysLeft` in UTC+8, negative once past; `noticeDays`: the bell's licence notice window. */
  licence: { expire: string | null; daysLeft: number | null; noticeDays: number };
  card: DriverCard | null;
  vehicles: DrivenVehicle[];
  alarms: { since: { today: string; month: string }; today: number; month: number; latest: DriverAlarm[] };
  /** The latest report days the driver drove, newest first. */
  grades: DriverGrade[];
}

export function fetchDriverDetail(driverId: string, signal?: AbortSignal) {
  return http.get<DriverDetail>(`/api/driver/${encodeURIComponent(driverId)}/detail.json`, { signal, quiet: true });
}
