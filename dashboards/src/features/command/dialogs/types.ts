import type { FormInstance } from 'antd';
import type { CarDevice } from '../api';

export interface DialogBodyProps {
  devices: CarDevice[];
  form: FormInstance;
  /** The device used when the form names none (the car has one device): its master device. */
  defaultDeviceId: number | undefined;
}
