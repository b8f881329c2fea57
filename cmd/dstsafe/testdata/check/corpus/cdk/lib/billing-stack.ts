import * as cdk from 'aws-cdk-lib';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';

export class BillingStack extends cdk.Stack {
  constructor(scope: Construct, id: string, props?: cdk.StackProps) {
    super(scope, id, props);

    new scheduler.CfnSchedule(this, 'NightlyBilling', {
      scheduleExpression: 'cron(30 2 * * ? *)',
      scheduleExpressionTimezone: 'America/Chicago',
      flexibleTimeWindow: { mode: 'OFF' },
      target: {
        arn: props!.billingFn.functionArn,
        roleArn: props!.role.roleArn,
      },
    });
  }
}
